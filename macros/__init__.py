"""The C++ kernels (weighted ROC, ntuple reader, class tables, error guard), shipped inside the
installed package as `pnetviz.macros` and JIT-compiled by cling (pnetviz.rootenv); CMakeLists.txt
builds the same sources as a library."""
