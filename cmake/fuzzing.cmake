# With TORCRUN_FUZZ=ON (clang only; scripts/fuzz.sh configures it in build-fuzz/) every library is
# compiled for libFuzzer: coverage instrumentation without libFuzzer's main, ASan and UBSan, any
# undefined behaviour fatal so that libFuzzer keeps the input, assertions on (no NDEBUG: the build
# type's own flags are dropped). The targets in fuzz/ link libFuzzer itself.
# Without UBSan's `function` check: clang 14 cannot emit its prologue data for Asio's coroutines
# ("Cannot represent a difference across sections"); the check covers calls through function
# pointers of the wrong type, which the code does not make. Line tables (file:line in stack traces)
# keep the objects small.
if(TORCRUN_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "TORCRUN_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
    endif()
    if(TORCRUN_SANITIZE)
        message(FATAL_ERROR
                "TORCRUN_FUZZ already builds with ASan and UBSan: leave TORCRUN_SANITIZE off")
    endif()
    string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type)
    set(CMAKE_CXX_FLAGS_${build_type} "")
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=function
                        -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only -O1)
    add_link_options(-fsanitize=address,undefined)
endif()
