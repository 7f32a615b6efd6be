# tartaros_musl_static(target): build `target` as a static musl executable with no C++
# runtime. The gcc driver with musl's specs file compiles C++ (cc1plus) but, unlike g++,
# never links libstdc++: any use of the C++ runtime (exceptions, RTTI, operator new) is a
# link error instead of a silent glibc dependency.
find_file(MUSL_GCC_SPECS musl-gcc.specs PATHS /usr/lib/x86_64-linux-musl NO_DEFAULT_PATH REQUIRED)

function(tartaros_musl_static tgt)
  target_compile_options(${tgt} PRIVATE -specs=${MUSL_GCC_SPECS}
    $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti -fno-threadsafe-statics>
    -Os -fno-asynchronous-unwind-tables -fno-unwind-tables -ffunction-sections -fdata-sections
    -fstack-protector-strong -fstack-clash-protection -Wall -Wextra -Wshadow)
  target_link_options(${tgt} PRIVATE -specs=${MUSL_GCC_SPECS} -static -nodefaultlibs
    -Wl,--gc-sections -s)
  target_link_libraries(${tgt} PRIVATE -Wl,--start-group c gcc gcc_eh -Wl,--end-group)
  set_target_properties(${tgt} PROPERTIES POSITION_INDEPENDENT_CODE OFF LINKER_LANGUAGE C)
endfunction()
