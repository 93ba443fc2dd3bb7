#!/usr/bin/env bash
# Checks one Promela model of test/models exhaustively with spin and compares the verdict
# with an expectation.
#
#   check_model.sh MODEL.pml MODE [CHECK] [--expect WHAT] [-DNAME[=VALUE]...]
#
#   MODE   pass  - spin must report no error (and a complete search)
#          fail  - spin must report an error (a seeded bug, or a documented limitation)
#   CHECK  --safety     (default) assertions and invalid end states (deadlocks); the
#                       model's ltl formulas are left out (-DNOCLAIM)
#          --ltl NAME   the model's ltl formula NAME, as an acceptance-cycle search
#                       under weak fairness (pan -a -f -N NAME)
#   --expect WHAT       with MODE fail: the error must be of this kind, one of
#                       assertion | deadlock | cycle
#   -D/-U flags         passed to spin's preprocessor (select a seeded bug, a size)
#
# Environment: SPIN (default: spin on PATH), PAN_CC (default: cc, else gcc), DEPTH (pan's
# -m, default 1000000), PAN_CFLAGS (more flags for compiling pan, e.g. -DCOLLAPSE: state
# compression for the larger searches), KEEP=1 keeps the work folder. Everything is written in a
# temporary folder (mktemp -d), never in the source tree.
# Exit status: 0 when the expectation holds, 1 when it does not, 2 on a usage or tool error.
set -u

usage() {
  sed -n '2,20p' "$0" >&2
  exit 2
}

[ $# -ge 2 ] || usage
model=$1
mode=$2
shift 2
case $mode in pass | fail) ;; *) usage ;; esac
[ -r "$model" ] || { echo "check_model.sh: cannot read $model" >&2; exit 2; }

check=safety
ltl=
expect=
defs=()
while [ $# -gt 0 ]; do
  case $1 in
    --safety) check=safety; shift ;;
    --ltl) [ $# -ge 2 ] || usage; check=ltl; ltl=$2; shift 2 ;;
    --ltl=*) check=ltl; ltl=${1#--ltl=}; shift ;;
    --expect) [ $# -ge 2 ] || usage; expect=$2; shift 2 ;;
    --expect=*) expect=${1#--expect=}; shift ;;
    -D* | -U*) defs+=("$1"); shift ;;
    *) echo "check_model.sh: unknown argument $1" >&2; usage ;;
  esac
done

spin=${SPIN:-spin}
command -v "$spin" >/dev/null 2>&1 || { echo "check_model.sh: spin not found ($spin)" >&2; exit 2; }
cc=${PAN_CC:-}
if [ -z "$cc" ]; then
  if command -v cc >/dev/null 2>&1; then cc=cc; else cc=gcc; fi
fi
depth=${DEPTH:-1000000}

case $expect in
  '') pattern= ;;
  assertion) pattern='^pan:[0-9]*: assertion violated' ;;
  deadlock) pattern='^pan:[0-9]*: invalid end state' ;;
  cycle) pattern='^pan:[0-9]*: acceptance cycle' ;;
  *) echo "check_model.sh: --expect takes assertion, deadlock or cycle" >&2; exit 2 ;;
esac

model_dir=$(cd "$(dirname "$model")" && pwd)
model_name=$(basename "$model")
work=$(mktemp -d "${TMPDIR:-/tmp}/unisync-model.XXXXXX") || exit 2
if [ "${KEEP:-0}" = 1 ]; then
  echo "work folder: $work"
else
  trap 'rm -rf "$work"' EXIT
fi
cp "$model_dir/$model_name" "$work/" || exit 2
# The headers that models share (#include "....pmh").
for header in "$model_dir"/*.pmh; do
  [ -e "$header" ] && { cp "$header" "$work/" || exit 2; }
done
cd "$work" || exit 2

what="$model_name ${defs[*]:-} ($check${ltl:+ $ltl}, expect $mode${expect:+: $expect})"
echo "== $what"

if ! "$spin" ${defs[@]+"${defs[@]}"} -a "$model_name" >spin.log 2>&1; then
  cat spin.log
  echo "check_model.sh: spin -a failed" >&2
  exit 2
fi

# -O0: compiling pan takes longer than these small searches.
cflags=(-O0 -w -DVECTORSZ=4096 -DMEMLIM=2048 -DNFAIR=4)
# shellcheck disable=SC2206 # PAN_CFLAGS is a list of flags, split on blanks
[ -n "${PAN_CFLAGS:-}" ] && cflags+=(${PAN_CFLAGS})
panflags=("-m$depth")
if [ "$check" = safety ]; then
  cflags+=(-DSAFETY -DNOCLAIM)
else
  panflags+=(-a -f -N "$ltl")
fi
if ! "$cc" "${cflags[@]}" -o pan pan.c >cc.log 2>&1; then
  cat cc.log
  echo "check_model.sh: compiling pan failed" >&2
  exit 2
fi

./pan "${panflags[@]}" >pan.log 2>&1
pan_status=$?

# Spin's summary: the error lines, the claim and the state counts.
summary='^(pan:|pan |error|Warning|State-vector|[ 0-9.e+]+ (states|transitions))'
summary+='|^	(never claim|assertion violations|acceptance|invalid end states)|errors:|search depth'
grep -E "$summary" pan.log

errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log | tail -n 1)
if [ -z "$errors" ]; then
  tail -n 30 pan.log
  echo "check_model.sh: pan gave no verdict (exit status $pan_status)" >&2
  exit 2
fi

show_trail() {
  # The counterexample, shortened: the last steps and the final values.
  if ls ./*.trail >/dev/null 2>&1; then
    echo "-- counterexample (last steps):"
    "$spin" ${defs[@]+"${defs[@]}"} -t -p -g -l "$model_name" 2>&1 | tail -n 40
  fi
}

incomplete=
if grep -qE 'max search depth too small|Search not completed|out of memory|hash table is full' pan.log; then
  incomplete=yes
fi

if [ "$mode" = pass ]; then
  if [ "$errors" -eq 0 ] && [ -z "$incomplete" ]; then
    echo "PASS: no error, search complete: $what"
    exit 0
  fi
  show_trail
  if [ "$errors" -eq 0 ]; then
    echo "FAIL: the search was not complete (raise DEPTH or memory): $what"
  else
    echo "FAIL: spin found an error: $what"
  fi
  exit 1
fi

# mode fail
if [ "$errors" -eq 0 ]; then
  echo "FAIL: spin did not catch the expected error: $what"
  exit 1
fi
if [ -n "$pattern" ] && ! grep -qE "$pattern" pan.log; then
  show_trail
  echo "FAIL: spin found an error, but not the expected kind ($expect): $what"
  exit 1
fi
show_trail
echo "PASS: spin caught the expected error: $what"
exit 0
