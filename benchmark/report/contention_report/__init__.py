"""unisync's contention report, one module per job.

results     load and parse Google Benchmark JSON into entries and cells
groups      group entries into compared series; ratios to peers and physical limits
plots       the PNG heatmaps, throughput curves and fairness plots
tables      markdown tables, long ones moved to side files
sections    the markdown sections and the whole report.md
formatting  numbers and words as the report prints them
"""
