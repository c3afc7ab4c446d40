# With TORCRUN_SANITIZE=ON every target is built and linked with ASan + UBSan. A UBSan finding
# aborts like an ASan one (-fno-sanitize-recover), so a test that hits one fails. -O0: GCC 12
# compiles a Beast/Asio translation unit with both sanitizers about 3 times faster than at -O1
# (20 s against 59 s for blocking_http_client.cpp on the 2-core CI machine), which is what
# decides the time of a sanitized run; the tests spend theirs waiting on processes and sockets.
if(TORCRUN_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                        -fno-omit-frame-pointer -O0)
    # Static runtimes: with GCC 12's shared libubsan beside libasan, UBSan ignores log_path and
    # writes to stderr, where test/support/sanitized_test.sh would not see the report.
    add_link_options(-fsanitize=address,undefined -static-libasan -static-libubsan)
endif()

# torcrun_timeout(SECONDS OUT): a test's ctest TIMEOUT, 3 times SECONDS in the sanitized build,
# whose -O0 code runs the random and simulation suites several times slower (as
# TORCRUN_TEST_TIME_FACTOR stretches the io tests' own bounds there).
function(torcrun_timeout seconds out)
    if(TORCRUN_SANITIZE)
        math(EXPR seconds "${seconds} * 3")
    endif()
    set(${out} ${seconds} PARENT_SCOPE)
endfunction()

# torcrun_add_test(NAME COMMAND...): add_test, and under TORCRUN_SANITIZE through
# test/support/sanitized_test.sh, which sends the test's sanitizer reports into
# sanitizer-reports/NAME/ of the build folder and fails the test when there is one. COMMAND names
# executables by $<TARGET_FILE:...>, as it need not come first.
function(torcrun_add_test name)
    set(launcher)
    if(TORCRUN_SANITIZE)
        set(launcher bash ${PROJECT_SOURCE_DIR}/test/support/sanitized_test.sh
                     ${PROJECT_BINARY_DIR}/sanitizer-reports/${name})
    endif()
    add_test(NAME ${name} COMMAND ${launcher} ${ARGN})
endfunction()
