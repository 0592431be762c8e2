/*
 * PromQL's syntax as Prometheus' parser (promql/parser/generated_parser.y and lex.go) accepts it,
 * for checking the expressions of deploy/observability: operator precedence and associativity,
 * vector matching and grouping modifiers, aggregations with by/without before or after their
 * arguments, range and subquery selectors, offset and @ modifiers, and the three kinds of string
 * literal. Keywords are case-insensitive as in Prometheus. What this grammar does not decide
 * (function names and argument types, label-name syntax) PromQLCheck checks on the tree.
 */
grammar PromQL;

expression : expr EOF ;

expr
    : expr LEFT_BRACKET DURATION (COLON DURATION?)? RIGHT_BRACKET   # rangeOrSubquery
    | expr (OFFSET SUB? DURATION | AT atTime)                      # modified
    | <assoc=right> expr POW grouping? expr                        # binary
    | (ADD | SUB) expr                                             # unary
    | expr (MUL | DIV | MOD | ATAN2) grouping? expr                # binary
    | expr (ADD | SUB) grouping? expr                              # binary
    | expr comparison BOOL? grouping? expr                         # binary
    | expr (AND | UNLESS) grouping? expr                           # binary
    | expr OR grouping? expr                                       # binary
    | LEFT_PAREN expr RIGHT_PAREN                                  # parens
    | aggregation                                                  # aggregate
    | IDENTIFIER LEFT_PAREN arguments? RIGHT_PAREN                 # call
    | vectorSelector                                               # selector
    | NUMBER                                                       # number
    | STRING                                                       # string
    ;

atTime : (ADD | SUB)? NUMBER | (START | END) LEFT_PAREN RIGHT_PAREN ;

comparison : EQL | NEQ | GTR | LSS | GTE | LTE ;

grouping : (ON | IGNORING) labelList ((GROUP_LEFT | GROUP_RIGHT) labelList?)? ;

aggregation
    : AGGREGATOR aggregationModifier? LEFT_PAREN arguments RIGHT_PAREN
    | AGGREGATOR LEFT_PAREN arguments RIGHT_PAREN aggregationModifier
    ;

aggregationModifier : (BY | WITHOUT) labelList ;

arguments : expr (COMMA expr)* ;

labelList : LEFT_PAREN (labelName (COMMA labelName)* COMMA?)? RIGHT_PAREN ;

vectorSelector
    : IDENTIFIER (LEFT_BRACE matchers? RIGHT_BRACE)?
    | LEFT_BRACE matchers RIGHT_BRACE
    ;

matchers : matcher (COMMA matcher)* COMMA? ;

matcher : labelName (EQ | NEQ | EQL_REGEX | NEQ_REGEX) STRING ;

// Keywords are label names wherever a label name is expected, as in Prometheus.
labelName
    : IDENTIFIER | AGGREGATOR | AND | OR | UNLESS | ATAN2 | BY | WITHOUT | ON | IGNORING
    | GROUP_LEFT | GROUP_RIGHT | OFFSET | BOOL | START | END
    ;

AND : A N D ;
OR : O R ;
UNLESS : U N L E S S ;
ATAN2 : A T A N '2' ;
BY : B Y ;
WITHOUT : W I T H O U T ;
ON : O N ;
IGNORING : I G N O R I N G ;
GROUP_LEFT : G R O U P '_' L E F T ;
GROUP_RIGHT : G R O U P '_' R I G H T ;
OFFSET : O F F S E T ;
BOOL : B O O L ;
START : S T A R T ;
END : E N D ;
AGGREGATOR
    : S U M | A V G | C O U N T | M I N | M A X | G R O U P | S T D D E V | S T D V A R
    | T O P K | B O T T O M K | C O U N T '_' V A L U E S | Q U A N T I L E
    | L I M I T K | L I M I T '_' R A T I O
    ;

// Before IDENTIFIER, so that Inf and NaN are numbers; before NUMBER, so that 5m is a duration.
DURATION : ([0-9]+ ('ms' | 's' | 'm' | 'h' | 'd' | 'w' | 'y'))+ ;
NUMBER
    : [0-9]+ ('.' [0-9]*)? EXPONENT?
    | '.' [0-9]+ EXPONENT?
    | '0' [xX] [0-9a-fA-F]+
    | I N F
    | N A N
    ;
// Unlike Prometheus, no name starts with ':', which inside brackets would swallow a subquery's step.
IDENTIFIER : [a-zA-Z_] [a-zA-Z0-9_:]* ;
STRING
    : '"' (~["\\\n] | '\\' .)* '"'
    | '\'' (~['\\\n] | '\\' .)* '\''
    | '`' ~'`'* '`'
    ;

LEFT_PAREN : '(' ;
RIGHT_PAREN : ')' ;
LEFT_BRACE : '{' ;
RIGHT_BRACE : '}' ;
LEFT_BRACKET : '[' ;
RIGHT_BRACKET : ']' ;
COMMA : ',' ;
COLON : ':' ;
AT : '@' ;
EQL_REGEX : '=~' ;
NEQ_REGEX : '!~' ;
EQL : '==' ;
NEQ : '!=' ;
GTE : '>=' ;
LTE : '<=' ;
GTR : '>' ;
LSS : '<' ;
EQ : '=' ;
ADD : '+' ;
SUB : '-' ;
MUL : '*' ;
DIV : '/' ;
MOD : '%' ;
POW : '^' ;

COMMENT : '#' ~[\r\n]* -> skip ;
WS : [ \t\r\n]+ -> skip ;
// Anything else is an error the parser reports with its position, never silently dropped.
UNEXPECTED : . ;

fragment EXPONENT : [eE] [+-]? [0-9]+ ;
fragment A : [aA] ; fragment B : [bB] ; fragment C : [cC] ; fragment D : [dD] ;
fragment E : [eE] ; fragment F : [fF] ; fragment G : [gG] ; fragment H : [hH] ;
fragment I : [iI] ; fragment K : [kK] ; fragment L : [lL] ; fragment M : [mM] ;
fragment N : [nN] ; fragment O : [oO] ; fragment P : [pP] ; fragment Q : [qQ] ;
fragment R : [rR] ; fragment S : [sS] ; fragment T : [tT] ; fragment U : [uU] ;
fragment V : [vV] ; fragment W : [wW] ; fragment X : [xX] ; fragment Y : [yY] ;
fragment Z : [zZ] ;
