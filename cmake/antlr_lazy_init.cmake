# cmake -DFILE=<TartLexer.cpp|TartParser.cpp> -DCLASS=<TartLexer|TartParser> -DBASE=<Lexer|Parser>
#       -P antlr_lazy_init.cmake
#
# The 4.7.2 tool's C++ target builds each recognizer's tables (the ATN deserialised, its DFA
# caches, the token names) in a static initialiser, `CLASS::Initializer CLASS::_init;`, so every
# start of every binary that links the parser pays for it (about 0.2 ms, and pages touched),
# whether or not a .tart file is ever read: `tartaros --version`, a TOML policy, a plan-cache
# hit. This edits the generated source so that the tables are built by the first recognizer
# constructed instead (a function-local static: once, thread-safe), and nothing at start-up.
# Each edit must apply exactly once: a tool that generates something else fails the build here
# rather than silently keeping the eager initialiser.
file(READ ${FILE} text)

function(replace_once from to)
  string(FIND "${text}" "${from}" first)
  string(FIND "${text}" "${from}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "antlr_lazy_init: '${from}' is not in ${FILE} exactly once")
  endif()
  string(REPLACE "${from}" "${to}" replaced "${text}")
  set(text "${replaced}" PARENT_SCOPE)
endfunction()

replace_once("${CLASS}::Initializer ${CLASS}::_init;" "")
set(constructor_head "${CLASS}::${CLASS}(")
string(FIND "${text}" "${constructor_head}" at)
string(FIND "${text}" ": ${BASE}(input) {" body_at)
if(at EQUAL -1 OR body_at LESS at)
  message(FATAL_ERROR "antlr_lazy_init: no constructor ${CLASS}(...) : ${BASE}(input) in ${FILE}")
endif()
replace_once(": ${BASE}(input) {" ": ${BASE}(input) {\n  static const Initializer initialized;  // antlr_lazy_init.cmake")
file(WRITE ${FILE} "${text}")
