// grammar/Tart.g4 — the .tart policy language. grammar/README.md explains every rule;
// docs/dsl.md is the reference with an example per construct.
//
// The parser only checks the shape of a policy. Everything about meaning (which keys a block
// knows, value types and ranges, groups, includes, syscall names and constants) is checked
// after parsing by compiler/frontend_dsl*.cpp, so that those errors get precise messages and
// the TOML front-end's checks are shared. The lexer never fails: characters it cannot use
// become BAD_CHAR or BAD_STRING tokens, which the front-end reports in words.
grammar Tart;

// ---------------------------------------------------------------------------------------
// Parser

policy          : statement* EOF ;

statement       : versionStmt
                | includeStmt
                | groupDef
                | syscallsBlock
                | block
                ;

// `version 1;` — any value, so that a wrong one gets the TOML front-end's type error.
versionStmt     : 'version' value ';' ;

// `include "common.tart";` — a path relative to the including file's directory.
includeStmt     : 'include' STRING ';' ;

// `paths secrets = ["~/.ssh", file "~/.netrc", @more];` / `domains registries = [...];`
groupDef        : kind=('paths' | 'domains') word '=' '[' (groupItem (',' groupItem)* ','?)? ']' ';' ;
groupItem       : STRING
                | typedPath
                | GROUP_REF
                ;

// `filesystem { ... }`: a block of settings. Any word parses as a block name; the front-end
// reports the unknown ones. `capability NAME { ... }` is allowed (by the front-end) only in
// `broker`.
block           : WORD '{' (capabilityBlock | setting)* '}' ;
capabilityBlock : 'capability' name '{' setting* '}' ;

// `KEY ENTRY, ENTRY, ... ;` — KEY is the TOML key; no entries is the empty list.
setting         : word (entry (',' entry)*)? ';' ;
entry           : (name '=')? value ;

value           : STRING
                | INTEGER
                | boolean
                | GROUP_REF
                | typedPath
                | inlineMap
                | word
                ;
boolean         : 'true' | 'false' ;
typedPath       : kind=('file' | 'dir') STRING ;
inlineMap       : '{' (mapEntry (',' mapEntry)*)? '}' ;
mapEntry        : name '=' value ;

// `syscalls { deny NAME [when COND (and COND)*] [errno E | kill]; ... }`
syscallsBlock   : 'syscalls' '{' denyRule* '}' ;
denyRule        : 'deny' word ('when' condition ('and' condition)*)? action? ';' ;
condition       : word op=('==' | '!=') expr                      # compareCondition
                | word negated='not'? 'in' '{' expr (',' expr)* '}' # setCondition
                | word '&' expr (op=('==' | '!=') expr)?          # maskCondition
                ;
expr            : atom ('|' atom)* ;
atom            : INTEGER | word ;
action          : 'errno' atom
                | 'kill'
                ;

// A bare word: every keyword is one too wherever a word or a name is expected.
word            : WORD
                | 'version' | 'include' | 'paths' | 'domains' | 'file' | 'dir' | 'true' | 'false'
                | 'deny' | 'when' | 'and' | 'in' | 'not' | 'errno' | 'kill' | 'capability' | 'syscalls'
                ;
// A name (a map entry's, a capability's): a bare word or a string.
name            : word | STRING ;

// ---------------------------------------------------------------------------------------
// Lexer

// Keywords and punctuation get names so the front-end's messages can speak of them; the
// parser rules above use their literals. Keywords come before WORD: a keyword's text is that
// keyword, and the parser's `word` rule takes it back where a bare word is expected.
KW_VERSION      : 'version' ;
KW_INCLUDE      : 'include' ;
KW_PATHS        : 'paths' ;
KW_DOMAINS      : 'domains' ;
KW_FILE         : 'file' ;
KW_DIR          : 'dir' ;
KW_TRUE         : 'true' ;
KW_FALSE        : 'false' ;
KW_DENY         : 'deny' ;
KW_WHEN         : 'when' ;
KW_AND          : 'and' ;
KW_IN           : 'in' ;
KW_NOT          : 'not' ;
KW_ERRNO        : 'errno' ;
KW_KILL         : 'kill' ;
KW_CAPABILITY   : 'capability' ;
KW_SYSCALLS     : 'syscalls' ;
SEMI            : ';' ;
COMMA           : ',' ;
ASSIGN          : '=' ;
LBRACE          : '{' ;
RBRACE          : '}' ;
LBRACKET        : '[' ;
RBRACKET        : ']' ;
EQ              : '==' ;
NE              : '!=' ;
AMP             : '&' ;
PIPE            : '|' ;

// A TOML basic string on one line. Escapes are checked (and decoded) by the front-end, with
// TOML's rules, so the shape here is only "backslash and any character".
STRING          : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;
// A string whose closing quote is missing on its line (longest match: a closed string wins).
BAD_STRING      : '"' (~["\\\r\n] | '\\' ~[\r\n])* '\\'? ;
// Decimal or 0x hexadecimal, optionally negative; ranges are checked where the value is used.
INTEGER         : '-'? ( [0-9]+ | '0' [xX] [0-9a-fA-F]+ ) ;
GROUP_REF       : '@' [A-Za-z_] [A-Za-z0-9_]* ;
WORD            : [A-Za-z_] [A-Za-z0-9_]* ;
COMMENT         : '#' ~[\r\n]* -> skip ;
WHITESPACE      : [ \t\r\n]+ -> skip ;
// Anything else, one character at a time: reported by the front-end, never by ANTLR.
BAD_CHAR        : . ;
