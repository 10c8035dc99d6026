"""Read an Nsight Compute SASS source page (`ncu -i R --page source --csv --print-source sass`,
gzipped here) and print where the warps' stall samples fall.

    python3 stalls.py rmat20-source-sass.csv.gz lines 0.006   # instructions with >= 0.6% of samples
    python3 stalls.py usa-source-sass.csv.gz ranges 100       # samples and executions per 100 instructions
"""
import csv
import gzip
import io
import sys

path, mode, arg = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = list(csv.reader(io.TextIOWrapper(gzip.open(path), encoding="utf-8")))
header, data = rows[1], rows[2:]
column = {name: i for i, name in enumerate(header)}
samples = column["Warp Stall Sampling (All Samples)"]
executed = column["Instructions Executed"]
stalls = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
total = sum(int(r[samples] or 0) for r in data)
print(f"{path}: {total} samples, {sum(int(r[executed] or 0) for r in data)} warp instructions executed, "
      f"{len(data)} SASS instructions")
if mode == "lines":
    for k, r in enumerate(data):
        s = int(r[samples] or 0)
        if s >= arg * total or ("BAR" in r[1] and int(r[executed] or 0)):
            top = sorted(((int(r[column[h]] or 0), h[6:]) for h in stalls), reverse=True)[:2]
            print(f"{k:5d} {100 * s / total:5.1f}% executed {r[executed]:>9s}  {r[1].strip()[:50]:50s} {top}")
else:
    step = int(arg)
    for a in range(0, len(data), step):
        part = data[a:a + step]
        s, e = sum(int(r[samples] or 0) for r in part), sum(int(r[executed] or 0) for r in part)
        if s or e:
            print(f"{a:5d}-{a + step - 1:5d} samples {100 * s / total:5.1f}% executed {e:>10d}")
