# -*- Python -*-
# lit configuration for the wsp regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "WSP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".cpp", ".test"]
config.excludes = ["Inputs", "downstream", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.wsp_obj_root, "test")
# ctest gives each file its own output root (test/CMakeLists.txt).
if os.environ.get("WSP_LIT_EXEC_ROOT"):
    config.test_exec_root = os.environ["WSP_LIT_EXEC_ROOT"]

# The sanitizer builds (scripts/sanitize.sh, WSP_SANITIZE=thread): their
# libraries need the sanitizer runtimes, so a downstream project cannot
# link them as they are.
if config.wsp_sanitize.upper() in ("ON", "1", "TRUE", "YES", "THREAD"):
    config.available_features.add("sanitized")

# The Python package is built (WSP_ENABLE_PYTHON): %python runs it.
if config.wsp_enable_python.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("python")
config.substitutions.append(("%python", config.python_executable))

# Open MPI's launcher (tests under Mpi/, ctest label mpi): it refuses to run
# as root unless told, and more ranks than cores need --oversubscribe.
import shutil
if shutil.which("mpirun"):
    config.available_features.add("mpi")
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    config.substitutions.append(("%mpirun", "mpirun --oversubscribe"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Host C++ compiler for compile-and-run and expected-to-fail compile tests.
# The runtime headers are used straight from the source tree.
wsp_include = os.path.join(config.wsp_src_root, "include")
config.substitutions.append(("%wsp_include", wsp_include))
config.substitutions.append(("%wsp_src_root", config.wsp_src_root))
config.substitutions.append(("%wsp_obj_root", config.wsp_obj_root))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
config.substitutions.append(("%host_cxx", config.host_cxx))
# The flags every piece of emitted or spec-facing C++ must compile cleanly
# under.
config.substitutions.append(
    ("%cxx_strict",
     f"{config.host_cxx} -std=c++17 -Wall -Wextra -Wpedantic -Werror -I {wsp_include}"))

tool_dirs = [config.wsp_tools_dir, config.llvm_tools_dir]
tools = ["wsp-opt", "wsp-translate", "wspc", "wsp-mask-view", "wsp-lsp-server",
         "wsp-reduce"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# FileCheck, not, count, split-file come from the LLVM tools dir.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
