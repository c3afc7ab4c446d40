# torcrun_warnings(target): the project's warning set; -Werror unless TORCRUN_WERROR is off.
# Sanitizer builds leave -Werror off: GCC 12 reports -Wmaybe-uninitialized false positives
# inside Beast under -fsanitize.
function(torcrun_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
    if(TORCRUN_WERROR AND NOT TORCRUN_SANITIZE)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()
