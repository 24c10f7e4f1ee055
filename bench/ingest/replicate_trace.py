#!/usr/bin/env python3
"""Replicates a real rocprofv3 kernel_trace.csv to N rows, for timing ingest on a real capture's
rows: each copy's Dispatch_Id and Correlation_Id are shifted past the last copy's and its
timestamps by the capture's span, so every dispatch stays unique and in time order.

usage: replicate_trace.py IN.csv OUT.csv [ROWS (default 1000000)]"""
import csv
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    want = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    di, ci = header.index("Dispatch_Id"), header.index("Correlation_Id")
    si, ei = header.index("Start_Timestamp"), header.index("End_Timestamp")
    span = max(int(r[ei]) for r in body) - min(int(r[si]) for r in body) + 1000
    max_d, max_c = max(int(r[di]) for r in body), max(int(r[ci]) for r in body)

    def field(x):  # rocprofv3 quotes text fields and leaves integers bare
        return x if x.lstrip("-").isdigit() else '"' + x.replace('"', '""') + '"'

    with open(dst, "w", newline="") as out:
        out.write(",".join('"%s"' % h for h in header) + "\n")
        n, k = 0, 0
        while n < want:
            for r in body:
                if n >= want:
                    break
                r2 = list(r)
                r2[di], r2[ci] = str(int(r[di]) + k * max_d), str(int(r[ci]) + k * max_c)
                r2[si], r2[ei] = str(int(r[si]) + k * span), str(int(r[ei]) + k * span)
                out.write(",".join(field(x) for x in r2) + "\n")
                n += 1
            k += 1


if __name__ == "__main__":
    main()
