"""Reads a dispatch's plan chart back (pto/runtime/plan_svg.hpp) and prints
the tokens its bars cover per batch group (an MoE descriptor's batch_idx)
and whether each lane's total is the sum of its bars (moe-chain-e2e.test).
"""
import re
import sys

svg = open(sys.argv[1]).read()
per_group = {}
for m in re.finditer(r'<rect class="unit[^>]* data-batch="(\d+)"[^>]*'
                     r' data-token-count="(\d+)"', svg):
    group, tokens = int(m.group(1)), int(m.group(2))
    per_group[group] = per_group.get(group, 0) + tokens
print("tokens per batch group:",
      " ".join(str(per_group[g]) for g in sorted(per_group)))
agree = True
for lane in svg.split('<g class="lane"')[1:]:
    lane = lane[:lane.index("</g>")]
    total = int(re.match(r' data-core="\d+" data-cost="(\d+)"', lane).group(1))
    bars = sum(int(c) for c in re.findall(
        r'<rect class="unit[^>]* data-cost="(\d+)"', lane))
    agree = agree and total == bars
print("lane totals:", "agree" if agree else "DIFFER")
