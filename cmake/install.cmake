# The installed layout and the Debian package (`make install`, `make deb`; docs/install.md).
#
#   bin/                                   tartaros, tartaros-compile, tartaros-exec
#   libexec/tartaros/                      tartaros-proxy, run by tartaros-exec only; tartaros-cli,
#                                          run by tartaros only
#   share/man/man1, man5                   tartaros(1), tartaros-compile(1), tartaros-exec(1),
#                                          tartaros-policy(5), generated at build time
#   share/bash-completion/completions/     tartaros
#   share/zsh/vendor-completions/          _tartaros (prefix /usr, where Debian's zsh looks for a
#                                          package's; share/zsh/site-functions under any other)
#   share/doc/tartaros/                    copyright, README.md, the docs/ pages, examples/
#
# Every destination is relative to the prefix, which is chosen when installing (`cmake --install
# --prefix`; CPack's is /usr), never baked into a binary: tartaros-exec finds tartaros-proxy and
# tartaros finds tartaros-cli relative to their own directory (TARTAROS_HELPER_FROM_BINDIR
# below), and tartaros-cli finds tartaros-exec the other way (TARTAROS_BINDIR_FROM_HELPER);
# shared/sibling_path.h.
include(GNUInstallDirs)
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)

set(TARTAROS_HELPER_DIR ${CMAKE_INSTALL_LIBEXECDIR}/tartaros)
cmake_path(ABSOLUTE_PATH CMAKE_INSTALL_BINDIR BASE_DIRECTORY /prefix OUTPUT_VARIABLE bindir_abs)
cmake_path(ABSOLUTE_PATH TARTAROS_HELPER_DIR BASE_DIRECTORY /prefix OUTPUT_VARIABLE helper_abs)
file(RELATIVE_PATH helper_from_bindir ${bindir_abs} ${helper_abs})
file(RELATIVE_PATH bindir_from_helper ${helper_abs} ${bindir_abs})
target_compile_definitions(tartaros-exec PRIVATE TARTAROS_HELPER_FROM_BINDIR="${helper_from_bindir}")
target_compile_definitions(tartaros PRIVATE TARTAROS_HELPER_FROM_BINDIR="${helper_from_bindir}")
set_property(SOURCE ${PROJECT_SOURCE_DIR}/compiler/cli/run_command.cpp DIRECTORY compiler APPEND PROPERTY
             COMPILE_DEFINITIONS TARTAROS_BINDIR_FROM_HELPER="${bindir_from_helper}")
set_property(SOURCE ${PROJECT_SOURCE_DIR}/compiler/cli/cli_docs.cpp DIRECTORY compiler APPEND PROPERTY
             COMPILE_DEFINITIONS TARTAROS_HELPER_FROM_BINDIR="${helper_from_bindir}")  # tartaros-exec(1)

install(TARGETS tartaros tartaros-compile tartaros-exec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tartaros-proxy tartaros-cli RUNTIME DESTINATION ${TARTAROS_HELPER_DIR})

# The man pages, compressed as Debian ships them (gzip -n: no name or time in the header, so
# the same page compresses to the same bytes).
set(TARTAROS_MAN_PAGES man1/tartaros.1 man1/tartaros-compile.1 man1/tartaros-exec.1 man5/tartaros-policy.5)
set(compressed)
foreach(page IN LISTS TARTAROS_MAN_PAGES)
  set(src ${CMAKE_BINARY_DIR}/share/man/${page})
  add_custom_command(OUTPUT ${src}.gz
    COMMAND sh -c "gzip -9n -c \"$1\" > \"$1.gz.tmp\" && mv \"$1.gz.tmp\" \"$1.gz\"" sh ${src}
    DEPENDS ${src} tartaros-docs
    VERBATIM)
  list(APPEND compressed ${src}.gz)
  get_filename_component(section_dir ${page} DIRECTORY)
  install(FILES ${src}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/${section_dir})
endforeach()
add_custom_target(tartaros-man-gz ALL DEPENDS ${compressed})

install(FILES ${CMAKE_BINARY_DIR}/share/bash-completion/completions/tartaros
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# zsh: Debian's zsh reads a package's completions from /usr/share/zsh/vendor-completions and a
# local installation's from /usr/local/share/zsh/site-functions; the prefix is known only now.
set(zsh_completion ${CMAKE_BINARY_DIR}/share/zsh/site-functions/_tartaros)
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(zsh_dir \"${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions\")
  else()
    set(zsh_dir \"${CMAKE_INSTALL_DATADIR}/zsh/site-functions\")
  endif()
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${zsh_dir}\" TYPE FILE FILES \"${zsh_completion}\")
")

install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# The Debian package: build/tartaros_<version>_<arch>.deb (`make deb`). Its Depends are what
# dpkg-shlibdeps finds the binaries linked against (dpkg-dev), and the data the compiler reads:
# the Public Suffix List (without it, `*.co.uk` would pass as a domain pattern).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tartaros)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(TARTAROS_MAINTAINER "TartarOS maintainers <maintainers@tartaros.invalid>"
    CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT ${TARTAROS_MAINTAINER})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS publicsuffix)
# The credential broker trusts the system's CA bundle (/usr/lib/ssl/cert.pem); without it, only
# a policy's ca_file.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS ca-certificates)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "sandbox for AI coding agents")
# The long description, plain: CPack puts the summary first and indents each line.
set(CPACK_PACKAGE_DESCRIPTION "TartarOS runs a command under a policy that says what it may read, write and
reach. tartaros-compile checks a policy (TOML or .tart) and lowers it to a
verified plan; tartaros-exec, a small static binary, enforces the plan with
user, mount, PID and network namespaces, Landlock and seccomp; tartaros-proxy
is the only way across the sandbox's network namespace (allowed domains,
relayed ports, a credential broker). `tartaros run --write . -- CMD` builds a
policy from flags.")
include(CPack)
