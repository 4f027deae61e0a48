"""Importing wsp under a Python that cannot run it says which Python can."""

import os
import subprocess
import sys


def test_a_missing_dependency_names_the_python_to_use():
    # numpy made unimportable, as under a Python without Debian's numpy.
    code = ("import sys; sys.modules['numpy'] = None\n"
            "try:\n"
            "    import wsp\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, env=dict(os.environ), check=True).stdout
    assert "wsp is built for cpython-" in out, out
    assert "Run it with /usr/bin/python3" in out, out
    assert "numpy" in out, out
