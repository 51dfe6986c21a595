#!/usr/bin/env bash
# split the final binaries in two carried archives (bench/results/2026-11-26-h100-s5-final was carried the same way)
set -e
cd /work/main
rm -rf .bins6/* .binsF/*
mkdir -p .bins6 .binsF
cd /
ls -S tmp/cfg/test/test_* > /tmp/regs/tests_by_size.txt
A=(); B=()
i=0
while read -r f; do if (( i % 5 == 0 || i % 5 == 2 )); then A+=("$f"); else B+=("$f"); fi; i=$((i+1)); done < /tmp/regs/tests_by_size.txt
tar -cJf /work/main/.bins6/a.tar.xz tmp/cfg/bench/bench tmp/cfg/bench/select_bench tmp/cfg/bench/CTestTestfile.cmake tmp/cfg/bench/cmake_install.cmake "${A[@]}"
tar -cJf /work/main/.binsF/b.tar.xz tmp/cfg/algoConfig.cmake tmp/cfg/algoConfigVersion.cmake tmp/cfg/CTestTestfile.cmake tmp/cfg/CMakeCache.txt tmp/cfg/cmake_install.cmake \
  tmp/cfg/test/CTestTestfile.cmake tmp/cfg/test/cmake_install.cmake tmp/cfg/test/docs \
  $(ls tmp/cfg/examples/example_* tmp/cfg/examples/demo 2>/dev/null) tmp/cfg/examples/CTestTestfile.cmake tmp/cfg/examples/cmake_install.cmake "${B[@]}"
ls -la /work/main/.bins6 /work/main/.binsF
