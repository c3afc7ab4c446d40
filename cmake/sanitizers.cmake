# With TORCRUN_SANITIZE=ON every target is built and linked with ASan + UBSan at -O1.
if(TORCRUN_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -O1)
    add_link_options(-fsanitize=address,undefined)
endif()
