# include(antlr_runtime_fixes.cmake) after find_package(antlr4-runtime): antlr4_static then
# links a copy of the runtime's archive with one static initialiser removed.
#
# The runtime's own XPath lexer (XPathLexer.cpp.o) deserialises and verifies its ATN in a static
# initialiser: about 270,000 instructions, half of what `tartaros --version` executes, at every
# start of tartaros-cli and tartaros-compile. The linker keeps that object because Parser.cpp.o
# refers to the parse-tree pattern matcher, which refers to XPath; TartarOS never calls either
# (XPath and tree patterns are for querying parse trees, and the .tart front-end walks its own).
# In the copy that object has no .init_array, so the lexer's tables are never built: any use of
# XPath would find them empty. The member must have exactly one initialiser: another runtime
# fails the configuration here.
set(antlr_archive "")
foreach(property IMPORTED_LOCATION_NONE IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION)
  get_target_property(location antlr4_static ${property})
  if(location AND NOT antlr_archive)
    set(antlr_archive ${location})
  endif()
endforeach()
if(NOT antlr_archive)
  message(FATAL_ERROR "antlr_runtime_fixes: antlr4_static has no archive")
endif()
set(antlr_fixed_dir ${CMAKE_BINARY_DIR}/antlr-fixed)
set(antlr_member XPathLexer.cpp.o)
file(REMOVE_RECURSE ${antlr_fixed_dir})
file(MAKE_DIRECTORY ${antlr_fixed_dir})
file(COPY ${antlr_archive} DESTINATION ${antlr_fixed_dir})
get_filename_component(antlr_archive_name ${antlr_archive} NAME)
set(ANTLR_FIXED_ARCHIVE ${antlr_fixed_dir}/${antlr_archive_name})

function(antlr_fix_step)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${antlr_fixed_dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "antlr_runtime_fixes: '${ARGN}' failed: ${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

antlr_fix_step(${CMAKE_AR} x ${ANTLR_FIXED_ARCHIVE} ${antlr_member})
antlr_fix_step(${CMAKE_OBJDUMP} -h ${antlr_member})
# One section line: "  NN .init_array 00000008 ...": one pointer, one initialiser.
if(NOT step_output MATCHES "\\.init_array +0*8 ")
  message(FATAL_ERROR "antlr_runtime_fixes: ${antlr_member} in ${antlr_archive} does not have exactly one static "
                      "initialiser")
endif()
antlr_fix_step(${CMAKE_OBJCOPY} --remove-section=.init_array --remove-section=.rela.init_array ${antlr_member})
antlr_fix_step(${CMAKE_AR} r ${ANTLR_FIXED_ARCHIVE} ${antlr_member})
file(REMOVE ${antlr_fixed_dir}/${antlr_member})
set_target_properties(antlr4_static PROPERTIES IMPORTED_LOCATION ${ANTLR_FIXED_ARCHIVE}
                                               IMPORTED_LOCATION_NONE ${ANTLR_FIXED_ARCHIVE})
