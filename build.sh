#!/usr/bin/env bash
# Build, test and run eosim on Debian 12. Installs the Debian packages it needs (apt-get, with sudo
# only when not root), configures with CMake + Ninja and builds.
#
#   ./build.sh suite            build the eosim command into build/ (Release) and run the main job
#   ./build.sh test             build everything into build/ (Release) and run every test (ctest)
#   ./build.sh test --sanitize  the same into build-asan/, compiled with clang++ and AddressSanitizer
#                               + UBSan (the golden trace hashes among the tests: clang's must agree),
#                               without the tests tagged [heavy]
#   ./build.sh examples         build into build/, install into a temporary prefix, then configure,
#                               build and test every examples/<name>/ against that prefix; one with
#                               an EXPECT_FAILURE file must fail its tests (a caught bug)
#   ./build.sh golden           build the eosim command into build/ and check the golden trace hashes
#                               (tests/golden/trace-hashes.json); `./build.sh golden --write`
#                               regenerates them: only with the reason in the commit message
#   ./build.sh fuzz             build the loader fuzzer into build-asan/ (clang++, sanitizers) and
#                               fuzz the scenario loader for EOSIM_FUZZ_RUNS executions (default
#                               200000; fuzz/README.md)
#   ./build.sh fan-out-check    install Slurm and munge from Debian, build the eosim command, start a
#                               one-node Slurm cluster on localhost and run docs/fan-out.md's Slurm
#                               recipe on it (tools/slurm/fan-out-check.sh; as root, with sudo if not)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# What the Release build needs (`./build.sh suite` installs only these), then what the tests and the
# sanitizer build add: clang and its runtime libraries are most of a bare machine's download.
readonly BUILD_PACKAGES=(g++ cmake ninja-build libboost-dev librocksdb-dev nlohmann-json3-dev libcli11-dev
                         catch2 librapidcheck-dev lld)
readonly TEST_PACKAGES=(libxml2-utils clang libclang-rt-dev python3)  # python3: the process-sink tests run Python sinks
# What the Slurm check adds (a one-node cluster: controller, node daemon, sbatch & co, munge; jq to
# compare results files).
readonly SLURM_PACKAGES=(slurmctld slurmd slurm-client munge jq)
# The process-sink examples (docs/sink-protocol.md): a Python sink and a Go sink, standard libraries only.
readonly EXAMPLE_PACKAGES=(python3 golang-go)

# Every build links with LLVM's lld (Debian's lld): a fraction of GNU ld's time on the big binaries
# (the sanitizer build's eosim_tests, 550 MB with debug info: 2 s of CPU instead of 11).
readonly LINKER=-fuse-ld=lld

usage() {
    sed -n '2,21s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

# install_missing_packages PACKAGE...: apt-get installs those not installed yet.
install_missing_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if ((${#missing[@]} == 0)); then return; fi
    echo "build.sh: installing missing Debian packages: ${missing[*]}" >&2
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# release_build [TARGET...]: the Release build in build/, of everything, or only of the named
# targets and what they link.
release_build() {
    if (($# == 0)); then
        install_missing_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    else
        install_missing_packages "${BUILD_PACKAGES[@]}"
    fi
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEOSIM_SANITIZE=OFF -DCMAKE_EXE_LINKER_FLAGS="$LINKER"
    cmake --build build --parallel "$(nproc)" ${1:+--target "$@"}
}

# The sanitizer build: clang++, AddressSanitizer + UndefinedBehaviorSanitizer, -O1, assertions on
# (no NDEBUG): slower code, more checks. It is also CI's second compiler: the golden trace hashes
# are among the tests, so clang -O1 must give the hashes gcc -O3 gives in build/. And it holds the
# loader fuzzer (libFuzzer is clang's), so one build serves both. Debug information -g1: line tables
# and functions, enough for the symbolised stacks of the sanitizer reports, without the variables
# and types of -g, which cost 30% of the compile time. Reconfigure with -DCMAKE_CXX_FLAGS_DEBUG="-O1
# -g" to debug in gdb. Without the benchmarks and the public headers compiled one by one: no test
# runs them, and the Release build compiles both. Executables not position-independent (-no-pie):
# instrumented, they carry millions of relative relocations (UBSan's source locations, ASan's
# globals) that a PIE applies at every start, and ctest starts eosim_tests ~600 times.
sanitizer_configure() {
    install_missing_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
          -DCMAKE_CXX_COMPILER=clang++ -DEOSIM_SANITIZE=ON -DEOSIM_FUZZ=ON \
          -DEOSIM_BENCHMARKS=OFF -DEOSIM_PUBLIC_HEADER_UNITS=OFF \
          -DCMAKE_EXE_LINKER_FLAGS="$LINKER -no-pie"
}

# The loader fuzzed from the shipped scenarios, in a scratch corpus (the seeds stay untouched); a
# finding (crash, sanitizer report, timeout, memory over the limit) fails the step and leaves its
# input in build-asan/fuzz-findings/.
run_fuzzer() {
    local corpus runs=${EOSIM_FUZZ_RUNS:-200000}
    corpus=$(mktemp -d "${TMPDIR:-/tmp}/eosim-fuzz.XXXXXX")
    trap 'rm -rf "$corpus"' RETURN
    mkdir -p build-asan/fuzz-findings
    build-asan/fuzz/scenario_loader_fuzzer -runs="$runs" -max_len=16384 -rss_limit_mb=1024 -timeout=10 \
        -print_final_stats=1 -artifact_prefix=build-asan/fuzz-findings/ "$corpus" scenarios/catalogue tests/cli/fixtures
}

# run_tests DIR [CTEST-ARGS...]
run_tests() {
    local dir=$1
    shift
    (cd "$dir" && ctest --output-on-failure --parallel "$(nproc)" "$@")
}

# Every examples/<name>/ is its own CMake project using the installed package (find_package(eosim)).
# Its tests must pass, or, with a file EXPECT_FAILURE in the folder, must fail (the file says why).
# The examples' own code is compiled without optimisation (-O0, no debug information): what is
# checked is that a user's project builds against the package and what its tests find, and the
# code doing the work (the installed libraries) is the Release build's; at -O3 each example's
# Catch2 main alone took 26 s of CPU instead of 12.
# run_process_example DIR WORK: a sink in another language (a folder with COMMAND, the command line
# that starts it, relative to the folder; a Go module's binary is built beforehand, by
# build_go_examples), then `eosim test-sink` at both levels. With EXPECT_FAILURE it must be caught (exit
# 1: a counterexample, not exit 2: bad input); without, it must pass.
run_process_example() {
    local example=$1 work=$2 name status=0
    name=$(basename "$example")
    echo "build.sh: example $name (process sink: $(cat "$example/COMMAND"))"
    mkdir -p "$work"
    build/cli/eosim test-sink --command "$(cat "$example/COMMAND")" --cwd "$example" --out "$work/failures" \
        >"$work/test-sink.log" 2>&1 || status=$?
    if [[ -f $example/EXPECT_FAILURE ]]; then
        if ((status == 1)); then
            echo "build.sh: example $name: caught as expected (EXPECT_FAILURE): $(grep -m1 'counterexample:' "$work/test-sink.log")"
            return 0
        fi
        echo "build.sh: example $name: exit $status, but EXPECT_FAILURE says test-sink must find a counterexample (exit 1)" >&2
    elif ((status == 0)); then
        echo "build.sh: example $name: passed"
        return 0
    else
        echo "build.sh: example $name: test-sink exit $status" >&2
    fi
    cat "$work/test-sink.log" >&2
    return 1
}

# build_go_examples: every examples/<name>/ that is a Go module is built into <name>/sink (offline:
# standard library only) before any example runs, since a buggy twin's COMMAND may start its
# correct sibling's binary with a flag (../go-docs-sink/sink -commit-on-pre-commit).
build_go_examples() {
    local module
    for module in examples/*/go.mod; do
        [[ -f $module ]] || continue
        (cd "$(dirname "$module")" && GOFLAGS=-mod=mod GOPROXY=off go build -o sink .)
    done
}

run_examples() {
    local prefix work example name status failed=0
    prefix=$(mktemp -d "${TMPDIR:-/tmp}/eosim-install.XXXXXX")
    work=$(mktemp -d "${TMPDIR:-/tmp}/eosim-examples.XXXXXX")
    trap 'rm -rf "$prefix" "$work"' RETURN
    cmake --install build --prefix "$prefix" >/dev/null
    echo "build.sh: installed eosim $(sed -n 's/^Version: //p' "$prefix"/lib*/pkgconfig/eosim.pc) into $prefix"
    build_go_examples
    for example in examples/*/; do
        example=${example%/}
        name=$(basename "$example")
        if [[ -f $example/COMMAND ]]; then
            run_process_example "$example" "$work/$name" || failed=1
            continue
        fi
        [[ -f $example/CMakeLists.txt ]] || continue
        echo "build.sh: example $name"
        cmake -S "$example" -B "$work/$name" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
        cmake --build "$work/$name" --parallel "$(nproc)"
        status=0
        (cd "$work/$name" && ctest --output-on-failure --parallel "$(nproc)") || status=$?
        if [[ -f $example/EXPECT_FAILURE ]]; then
            if ((status == 0)); then
                echo "build.sh: example $name: its tests passed, but EXPECT_FAILURE says they must fail" >&2
                failed=1
            else
                echo "build.sh: example $name: failed as expected (EXPECT_FAILURE)"
            fi
        elif ((status != 0)); then
            echo "build.sh: example $name: tests failed" >&2
            failed=1
        fi
    done
    return "$failed"
}

command=${1:-}
shift || true
case "$command" in
    suite)
        (($# == 0)) || usage
        # Only the command the main job runs (and the libraries it links): not the test executable,
        # the benchmarks or the public-header units, which `./build.sh test` builds.
        release_build eosim
        # The main job: every scenario of scenarios/catalogue/ over its seeds (1..100), summary table and HTML report.
        build/cli/eosim suite scenarios/default.suite.json --junit build/report/junit.xml --report build/report
        ;;
    test)
        case "${1:-}" in
            "")
                release_build
                run_tests build
                ;;
            --sanitize)
                (($# == 1)) || usage
                sanitizer_configure
                cmake --build build-asan --parallel "$(nproc)"
                export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
                export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
                # Without the test cases tagged [heavy] (tests/CMakeLists.txt).
                run_tests build-asan --label-exclude heavy
                ;;
            *) usage ;;
        esac
        ;;
    examples)
        (($# == 0)) || usage
        install_missing_packages "${EXAMPLE_PACKAGES[@]}"
        release_build
        run_examples
        ;;
    golden)
        case "${1:-}" in
            "") release_build eosim; build/cli/eosim golden ;;
            --write) (($# == 1)) || usage; release_build eosim; build/cli/eosim golden --write ;;
            *) usage ;;
        esac
        ;;
    fuzz)
        (($# == 0)) || usage
        sanitizer_configure
        cmake --build build-asan --parallel "$(nproc)" --target scenario_loader_fuzzer
        run_fuzzer
        ;;
    fan-out-check)
        (($# == 0)) || usage
        install_missing_packages "${SLURM_PACKAGES[@]}"
        release_build eosim
        if [[ $(id -u) -ne 0 ]]; then sudo tools/slurm/fan-out-check.sh; else tools/slurm/fan-out-check.sh; fi
        ;;
    *) usage ;;
esac
