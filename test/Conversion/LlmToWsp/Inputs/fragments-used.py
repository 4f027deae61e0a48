"""Every fragment of the kernel families is used: each `//--- name` of
lib/Conversion/LlmToWsp/Templates/*.mlir.in is named as `kName` by the
families' C++, so that none rots unparsed (the families' lit tests parse
what the lowerings use). Prints the unused ones and exits 1 if any."""

import glob
import os
import re
import sys

root = sys.argv[1]
code = ""
for path in glob.glob(os.path.join(root, "*.cpp")) + glob.glob(os.path.join(root, "*.h")):
    with open(path, encoding="utf-8") as f:
        code += f.read()
names = []
for path in sorted(glob.glob(os.path.join(root, "Templates", "*.mlir.in"))):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("//--- "):
                names.append((os.path.basename(path), line[6:].strip()))
unused = []
for base, name in names:
    constant = "k" + "".join(w[:1].upper() + w[1:] for w in name.split("_"))
    if not re.search(r"\b" + constant + r"\b", code):
        unused.append(f"{base}: fragment '{name}' ({constant}) is not used")
print("\n".join(unused) if unused else f"{len(names)} fragments, all used")
sys.exit(1 if unused else 0)
