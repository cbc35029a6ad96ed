/* parser.y -- the grammar of the rules language (stage 2: tokens -> AST).
 * See docs/language.md for the language this accepts. */
%require "3.8"
%define api.pure full
%define api.prefix {mt}
%define api.token.prefix {T_}
%define api.value.type union
%define api.location.type {mt_span}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {void *scanner}
%parse-param {struct lex_state *ls}

%code requires {
#include "ast.h"
#include "lex_state.h"
#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif
#define YYLLOC_DEFAULT(Cur, Rhs, N) do {                                    \
    if (N) { (Cur).file = YYRHSLOC(Rhs, 1).file; (Cur).start = YYRHSLOC(Rhs, 1).start; \
             (Cur).end = YYRHSLOC(Rhs, N).end; }                              \
    else { (Cur).file = YYRHSLOC(Rhs, 0).file;                                \
           (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end; } } while (0)
}
%code provides {
#define YYSTYPE MTSTYPE
#define YYLTYPE MTLTYPE
}
%code {
#include <stdarg.h>
#include <string.h>
#include "lexer.h"
#define YYMAXDEPTH 4000
static void mterror(mt_span *loc, void *scanner, struct lex_state *ls, const char *msg);
#define A (ls->arena)
#define N(k, loc) ast_new(A, k, loc)
static node *named(struct lex_state *ls, int k, mt_span loc, const char *name) {
  node *n = ast_new(ls->arena, (ast_kind)k, loc); n->name = name; return n; }
static node *bin(struct lex_state *ls, int op, node *a, node *b, mt_span loc) {
  node *n = ast_new(ls->arena, AST_BINARY, loc); n->op = (uint16_t)op;
  ast_add(ls->arena, n, a); ast_add(ls->arena, n, b); return n; }
static node *un(struct lex_state *ls, int op, node *a, mt_span loc) {
  node *n = ast_new(ls->arena, AST_UNARY, loc); n->op = (uint16_t)op; ast_add(ls->arena, n, a); return n; }
static node *rule(struct lex_state *ls, mt_span loc, int form, const char *id, const char *title,
                  uint32_t tags, node *links, node *members) {
  node *n = ast_new(ls->arena, AST_RULE, loc); n->ival = form; n->name = id; n->str = title;
  n->flags = tags; ast_add(ls->arena, n, links); ast_add(ls->arena, n, members); return n; }
}

%token END 0 "end of input"
%token START_EXPR "expression start"
%token EVENT "event" VAR "var" RULE "rule" ABILITY "ability" VALUE "value" ACTION "action"
%token PHASE "phase" STEP "step" GAME "game" FACTION "faction" CARD "card" VARIANT "variant"
%token EXTENDS "extends" DISABLE "disable" REPLACE "replace" SUPERSEDES "supersedes"
%token AMENDS "amends" BASIC "basic" ADVANCED "advanced" ALLIANCE "alliance" NOTE "note"
%token KARAMA "karama" BEFORE "before" AFTER "after" INSTEAD "instead" OF "of" ON "on"
%token PROCEDURE "procedure" INVARIANT "invariant" REPAIR "repair" CHECK "check" REQUIRE "require" FORBID "forbid" BECAUSE "because"
%token COST "cost" EFFECT "effect" WHEN "when" WHERE "where" ORDER "order" LET "let" SET "set"
%token IF "if" ELSE "else" FOR "for" IN "in" BY "by" BREAK "break" SIGNAL "signal" RUN "run"
%token MAY "may" ACT "act" IS "is" CAN "can" VERB "verb" ASK "ask" FROM "from" SECRET "secret" CANCEL "cancel" LOG "log"
%token FINISH "finish" AND "and" OR "or" NOT "not" TRUE "true" FALSE "false" NONE "none"
%token EQ "==" NE "!=" LE "<=" GE ">=" DOTDOT ".."
%token <int> AGG "aggregate"
%token <const char *> RULEID "rule number" NAME "name" STRING "string"
%token <int64_t> INT "integer"

%type <node *> file decls decl rule_decl rule_head_items links link_ids link_id items item member stmt
%type <node *> block else_part expr params param_list param bind_list binders act_names act_name kind_name kind_names exprs
%type <node *> opt_where opt_by type action_items action_item variant_items variant_item
%type <node *> rules_list opt_args opt_type opt_when
%type <const char *> ruleid opt_because opt_name opt_title typename varname
%type <uint32_t> tag

%precedence ASKPREC
%right '?' ':'
%left OR
%left AND
%precedence NOT
%nonassoc EQ NE '<' LE '>' GE IN
%nonassoc DOTDOT
%left '+' '-' '&' '|'
%left '*' '/' '%'
%precedence UMINUS

%initial-action { @$.file = ls->file; @$.start = @$.end = 0; }

%%
file: decls { ls->root = $1; $$ = $1; }
    | START_EXPR expr { ls->expr = $2; $$ = $2; }
    ;

decls: %empty { $$ = N(AST_FILE, @$); }
     | decls decl { $$ = ast_add(A, $1, $2); }
     | decls error { $$ = $1; }
     ;

decl: EVENT NAME '(' param_list ')' {
        $$ = named(ls, AST_EVENT, @2, $2); for (uint32_t i = 0; i < $4->nkids; i++) ast_add(A, $$, $4->kids[i]); }
    | VAR NAME opt_args ':' type {
        $$ = named(ls, AST_VARDECL, @2, $2); ast_add(A, $$, $3); ast_add(A, $$, $5); ast_add(A, $$, NULL); }
    | VAR NAME opt_args ':' type '=' expr {
        $$ = named(ls, AST_VARDECL, @2, $2); ast_add(A, $$, $3); ast_add(A, $$, $5); ast_add(A, $$, $7); }
    | SECRET VAR NAME opt_args ':' type {
        $$ = named(ls, AST_VARDECL, @3, $3); $$->flags = 1; ast_add(A, $$, $4); ast_add(A, $$, $6); ast_add(A, $$, NULL); }
    | SECRET VAR NAME opt_args ':' type '=' expr {
        $$ = named(ls, AST_VARDECL, @3, $3); $$->flags = 1; ast_add(A, $$, $4); ast_add(A, $$, $6); ast_add(A, $$, $8); }
    | ORDER NAME BY NAME {
        if (strcmp($2, "triggers") != 0) mterror(&@2, NULL, ls, "expected 'triggers' after 'order'");
        $$ = named(ls, AST_ORDER, @4, $4); }
    | rule_decl
    | FACTION NAME opt_title '{' rules_list '}' {
        $$ = named(ls, AST_FACTION, @2, $2); $$->str = $3; for (uint32_t i = 0; i < $5->nkids; i++) ast_add(A, $$, $5->kids[i]); }
    | CARD NAME opt_title '{' rules_list '}' {
        $$ = named(ls, AST_CARD, @2, $2); $$->str = $3; for (uint32_t i = 0; i < $5->nkids; i++) ast_add(A, $$, $5->kids[i]); }
    | CARD KARAMA opt_title '{' rules_list '}' {
        $$ = named(ls, AST_CARD, @2, "karama"); $$->str = $3; for (uint32_t i = 0; i < $5->nkids; i++) ast_add(A, $$, $5->kids[i]); }
    | VARIANT varname opt_title '{' variant_items '}' {
        $$ = named(ls, AST_VARIANT, @2, $2); $$->str = $3; ast_add(A, $$, NULL);
        for (uint32_t i = 0; i < $5->nkids; i++) ast_add(A, $$, $5->kids[i]); }
    | VARIANT varname opt_title EXTENDS varname '{' variant_items '}' {
        $$ = named(ls, AST_VARIANT, @2, $2); $$->str = $3; ast_add(A, $$, named(ls, AST_NAME, @5, $5));
        for (uint32_t i = 0; i < $7->nkids; i++) ast_add(A, $$, $7->kids[i]); }
    | VARIANT varname opt_title IN varname '{' variant_items '}' {
        $$ = named(ls, AST_VARIANT, @2, $2); $$->str = $3; $$->flags = AST_VARIANT_PART;
        ast_add(A, $$, named(ls, AST_NAME, @5, $5));
        for (uint32_t i = 0; i < $7->nkids; i++) ast_add(A, $$, $7->kids[i]); }
    ;

opt_title: %empty { $$ = NULL; } | STRING ;
opt_args: %empty { $$ = N(AST_LIST, @$); } | '(' param_list ')' { $$ = $2; } ;

rules_list: %empty { $$ = N(AST_LIST, @$); }
          | rules_list rule_decl { $$ = ast_add(A, $1, $2); }
          | rules_list error { $$ = $1; }
          ;

variant_items: %empty { $$ = N(AST_LIST, @$); }
             | variant_items variant_item { $$ = ast_add(A, $1, $2); }
             | variant_items error { $$ = $1; }
             ;
variant_item: rule_decl
            | DISABLE ruleid { $$ = named(ls, AST_DISABLE, @2, $2); }
            | REPLACE ruleid '{' items '}' { $$ = named(ls, AST_REPLACE, @2, $2); ast_add(A, $$, $4); }
            | FACTION NAME opt_title '{' rules_list '}' {
                $$ = named(ls, AST_FACTION, @2, $2); $$->str = $3;
                for (uint32_t i = 0; i < $5->nkids; i++) ast_add(A, $$, $5->kids[i]); }
            | CARD NAME opt_title '{' rules_list '}' {
                $$ = named(ls, AST_CARD, @2, $2); $$->str = $3;
                for (uint32_t i = 0; i < $5->nkids; i++) ast_add(A, $$, $5->kids[i]); }
            ;

ruleid: RULEID | INT { char b[32]; snprintf(b, sizeof b, "%lld", (long long)$1); $$ = lex_text(ls, b, strlen(b)); } ;

/* Rule forms.  The span of a rule is its number. */
rule_decl: RULE ruleid STRING rule_head_items '{' items '}' {
             $$ = rule(ls, @2, RF_RULE, $2, $3, $4->flags, ast_kid($4, 0), $6); }
         | ABILITY ruleid STRING rule_head_items '{' items '}' {
             $$ = rule(ls, @2, RF_ABILITY, $2, $3, $4->flags, ast_kid($4, 0), $6); }
         | PHASE ruleid STRING rule_head_items opt_name '{' items '}' {
             $$ = rule(ls, @2, RF_PHASE, $2, $3, $4->flags, ast_kid($4, 0), $7);
             if ($5) ast_add(A, $$, named(ls, AST_NAME, @5, $5)); }
         | STEP ruleid STRING rule_head_items opt_name '{' items '}' {
             $$ = rule(ls, @2, RF_STEP, $2, $3, $4->flags, ast_kid($4, 0), $7);
             if ($5) ast_add(A, $$, named(ls, AST_NAME, @5, $5)); }
         | GAME ruleid STRING rule_head_items '{' items '}' {
             $$ = rule(ls, @2, RF_GAME, $2, $3, $4->flags, ast_kid($4, 0), $6); }
         | VALUE ruleid STRING rule_head_items NAME '(' params ')' opt_type opt_when '=' expr {
             node *v = named(ls, AST_VALUE, @5, $5);
             ast_add(A, v, $7); ast_add(A, v, $9); ast_add(A, v, $10); ast_add(A, v, $12);
             node *m = N(AST_LIST, @5); ast_add(A, m, v);
             $$ = rule(ls, @2, RF_VALUE, $2, $3, $4->flags, ast_kid($4, 0), m); }
         | ACTION ruleid STRING rule_head_items NAME '(' params ')' '{' action_items '}' {
             node *v = named(ls, AST_ACTION, @5, $5); ast_add(A, v, $7); ast_add(A, v, $10);
             node *m = N(AST_LIST, @5); ast_add(A, m, v);
             $$ = rule(ls, @2, RF_ACTION, $2, $3, $4->flags, ast_kid($4, 0), m); }
         ;

opt_name: %empty { $$ = NULL; } | NAME ;
opt_type: %empty { $$ = NULL; } | ':' type { $$ = $2; } ;
opt_when: %empty { $$ = NULL; } | WHEN expr { $$ = $2; } ;

/* tags and links in any order; the node carries tags in flags, links in kid 0 */
rule_head_items: %empty { $$ = N(AST_LIST, @$); $$->flags = 0; ast_add(A, $$, N(AST_LIST, @$)); }
               | rule_head_items tag { $$ = $1; $$->flags |= $2; }
               | rule_head_items links { $$ = $1; for (uint32_t i = 0; i < $2->nkids; i++) ast_add(A, $$->kids[0], $2->kids[i]); }
               ;
tag: BASIC { $$ = TAG_BASIC; } | ADVANCED { $$ = TAG_ADVANCED; } | ALLIANCE { $$ = TAG_ALLIANCE; }
   | NOTE { $$ = TAG_NOTE; }
   | KARAMA BEFORE { $$ = TAG_KARAMA_BEFORE; } | KARAMA AFTER { $$ = TAG_KARAMA_AFTER; }
   | KARAMA NAME {
       if (strcmp($2, "both") != 0) mterror(&@2, NULL, ls, "karama window must be 'before', 'after' or 'both'");
       $$ = TAG_KARAMA_BEFORE | TAG_KARAMA_AFTER; }
   ;
links: SUPERSEDES link_ids { $$ = $2; for (uint32_t i = 0; i < $$->nkids; i++) $$->kids[i]->op = LINK_SUPERSEDES; }
     | AMENDS link_ids { $$ = $2; for (uint32_t i = 0; i < $$->nkids; i++) $$->kids[i]->op = LINK_AMENDS; }
     ;
link_ids: link_id { $$ = N(AST_LIST, @1); ast_add(A, $$, $1); }
        | link_ids link_id { $$ = ast_add(A, $1, $2); }
        | link_ids ',' link_id { $$ = ast_add(A, $1, $3); }
        ;
/* a target marked '?' is optional: a link to a rule the pack may lack (another mod's), dropped when absent */
link_id: ruleid { $$ = named(ls, AST_LINK, @1, $1); }
       | ruleid '?' { $$ = named(ls, AST_LINK, @1, $1); $$->flags = AST_LINK_OPTIONAL; }
        ;

/* A rule body mixes members (hooks) and statements (what running the rule does). */
items: %empty { $$ = N(AST_LIST, @$); }
     | items item { $$ = ast_add(A, $1, $2); }
     | items ';' { $$ = $1; }
     | items error { $$ = $1; }
     ;
item: member | stmt | rule_decl ;

member: VALUE NAME '(' params ')' opt_type opt_when '=' expr {
          $$ = named(ls, AST_VALUE, @2, $2); ast_add(A, $$, $4); ast_add(A, $$, $6); ast_add(A, $$, $7); ast_add(A, $$, $9); }
      | ACTION NAME '(' params ')' '{' action_items '}' {
          $$ = named(ls, AST_ACTION, @2, $2); ast_add(A, $$, $4); ast_add(A, $$, $7); }
      | VERB NAME '=' NAME { $$ = named(ls, AST_VERB, @2, $2); $$->str = $4; }
      | VERB NAME '(' params ')' '=' NAME '(' exprs ')' {
          $$ = named(ls, AST_VERB, @2, $2); ast_add(A, $$, $4);
          node *c = named(ls, AST_CALL, @7, $7); for (uint32_t i = 0; i < $9->nkids; i++) ast_add(A, c, $9->kids[i]);
          ast_add(A, $$, c); }
      | CHECK NAME '(' binders ')' opt_where '{' action_items '}' {
          $$ = named(ls, AST_CHECK, @2, $2); ast_add(A, $$, $4); ast_add(A, $$, $6); ast_add(A, $$, $8); }
      | BEFORE NAME '(' binders ')' opt_where block {
          $$ = named(ls, AST_TRIGGER, @2, $2); $$->op = TRIG_BEFORE; ast_add(A, $$, $4); ast_add(A, $$, $6); ast_add(A, $$, $7); }
      | AFTER NAME '(' binders ')' opt_where block {
          $$ = named(ls, AST_TRIGGER, @2, $2); $$->op = TRIG_AFTER; ast_add(A, $$, $4); ast_add(A, $$, $6); ast_add(A, $$, $7); }
      | INSTEAD OF NAME '(' binders ')' opt_where block {
          $$ = named(ls, AST_TRIGGER, @3, $3); $$->op = TRIG_INSTEAD; ast_add(A, $$, $5); ast_add(A, $$, $7); ast_add(A, $$, $8); }
      | ON NAME '(' binders ')' opt_where block {
          $$ = named(ls, AST_TRIGGER, @2, $2); $$->op = TRIG_ON; ast_add(A, $$, $4); ast_add(A, $$, $6); ast_add(A, $$, $7); }
      | PROCEDURE NAME '(' param_list ')' block {
          $$ = named(ls, AST_PROC, @2, $2); ast_add(A, $$, $4); ast_add(A, $$, $6); }
      | INVARIANT STRING expr { $$ = N(AST_INVARIANT, @1); $$->str = $2; ast_add(A, $$, $3); }
      | INVARIANT STRING expr REPAIR block {
          $$ = N(AST_INVARIANT, @1); $$->str = $2; ast_add(A, $$, $3); ast_add(A, $$, $5); }
      ;

action_items: %empty { $$ = N(AST_LIST, @$); }
            | action_items action_item { $$ = ast_add(A, $1, $2); }
            | action_items ';' { $$ = $1; }
            | action_items error { $$ = $1; }
            ;
action_item: REQUIRE expr opt_because { $$ = N(AST_REQUIRE, @2); $$->name = $3; ast_add(A, $$, $2); }
           | FORBID expr opt_because { $$ = N(AST_FORBID, @2); $$->name = $3; ast_add(A, $$, $2); }
           | COST expr { $$ = N(AST_COST, @2); ast_add(A, $$, $2); }
           | EFFECT block { $$ = N(AST_EFFECT, @1); ast_add(A, $$, $2); }
           | IS kind_names { $$ = N(AST_KINDS, @1); for (uint32_t i = 0; i < $2->nkids; i++) ast_add(A, $$, $2->kids[i]); }
           ;
opt_because: %empty { $$ = NULL; } | BECAUSE ruleid { $$ = $2; } ;
opt_where: %empty { $$ = NULL; } | WHERE expr { $$ = $2; } ;
opt_by: %empty { $$ = NULL; } | BY expr { $$ = $2; } ;

/* Value parameters may be typed binders or patterns (an entity constant or a name). */
params: %empty { $$ = N(AST_LIST, @$); }
      | param { $$ = N(AST_LIST, @1); ast_add(A, $$, $1); }
      | params ',' param { $$ = ast_add(A, $1, $3); }
      ;
param: NAME ':' type { $$ = named(ls, AST_PARAM, @1, $1); ast_add(A, $$, $3); }
     | NAME ':' type IN expr {
         $$ = named(ls, AST_PARAM, @1, $1); ast_add(A, $$, $3); ast_add(A, $$, $5); }
     | NAME ':' type IN expr NAME { /* `listed`: the domain only bounds what is listed, never legality */
         $$ = named(ls, AST_PARAM, @1, $1); ast_add(A, $$, $3); ast_add(A, $$, $5);
         if (strcmp($6, "listed")) lex_error(ls, @6, "expected ',' or ')' after a parameter's domain (or 'listed'), not '%s'", $6);
         $$->op = 1; }
     | expr
     ;
param_list: %empty { $$ = N(AST_LIST, @$); }
          | NAME ':' type { $$ = N(AST_LIST, @1); node *p = named(ls, AST_PARAM, @1, $1); ast_add(A, p, $3); ast_add(A, $$, p); }
          | param_list ',' NAME ':' type { node *p = named(ls, AST_PARAM, @3, $3); ast_add(A, p, $5); $$ = ast_add(A, $1, p); }
          ;
binders: %empty { $$ = N(AST_LIST, @$); } | bind_list ;
bind_list: NAME { $$ = N(AST_LIST, @1); ast_add(A, $$, named(ls, AST_NAME, @1, $1)); }
         | bind_list ',' NAME { $$ = ast_add(A, $1, named(ls, AST_NAME, @3, $3)); }
         ;
/* the actions a decision offers: names, and `any KIND` for every action of a kind (ival 1) */
act_names: act_name { $$ = N(AST_LIST, @1); ast_add(A, $$, $1); }
         | act_names ',' act_name { $$ = ast_add(A, $1, $3); }
         ;
/* a kind of action is any name; `karama` too (the verb players use for a Karama card) */
kind_name: NAME { $$ = named(ls, AST_NAME, @1, $1); }
         | KARAMA { $$ = named(ls, AST_NAME, @1, "karama"); }
         ;
kind_names: kind_name { $$ = N(AST_LIST, @1); ast_add(A, $$, $1); }
          | kind_names ',' kind_name { $$ = ast_add(A, $1, $3); }
          ;
act_name: NAME { $$ = named(ls, AST_NAME, @1, $1); }
        | AGG KARAMA { $$ = named(ls, AST_NAME, @2, "karama"); $$->ival = 1;
            if ($1 != AGG_ANY) mterror(&@1, NULL, ls, "an action list names actions, or 'any KIND' for every action of a kind"); }
        | AGG NAME {
            $$ = named(ls, AST_NAME, @2, $2); $$->ival = 1;
            if ($1 != AGG_ANY) mterror(&@1, NULL, ls, "an action list names actions, or 'any KIND' for every action of a kind"); }
        ;
type: typename { $$ = named(ls, AST_TYPE, @1, $1); }
    | SET OF typename { $$ = named(ls, AST_TYPE, @$, $3); $$->op = 1; }
    ;
typename: NAME | FACTION { $$ = "faction"; } | CARD { $$ = "card"; } | RULE { $$ = "rule"; } ;
varname: NAME | BASIC { $$ = "basic"; } | ADVANCED { $$ = "advanced"; } ;

block: '{' items '}' { $$ = $2; $$->kind = AST_BLOCK; $$->span = @$; } ;

stmt: LET NAME '=' expr { $$ = named(ls, AST_LET, @2, $2); ast_add(A, $$, $4); }
    | SET NAME '=' expr { $$ = named(ls, AST_ASSIGN, @2, $2); ast_add(A, $$, N(AST_LIST, @2)); ast_add(A, $$, $4); }
    | SET PHASE '=' expr { $$ = named(ls, AST_ASSIGN, @2, "phase"); ast_add(A, $$, N(AST_LIST, @2)); ast_add(A, $$, $4); }
    | SET NAME '(' exprs ')' '=' expr { $$ = named(ls, AST_ASSIGN, @2, $2); ast_add(A, $$, $4); ast_add(A, $$, $7); }
    | IF expr block else_part { $$ = N(AST_IF, @1); ast_add(A, $$, $2); ast_add(A, $$, $3); ast_add(A, $$, $4); }
    | FOR NAME IN expr opt_where opt_by block {
        $$ = named(ls, AST_FOR, @2, $2); ast_add(A, $$, $4); ast_add(A, $$, $5); ast_add(A, $$, $6); ast_add(A, $$, $7); }
    | BREAK { $$ = N(AST_BREAK, @1); }
    | SIGNAL NAME '(' exprs ')' { $$ = named(ls, AST_SIGNAL, @2, $2); for (uint32_t i = 0; i < $4->nkids; i++) ast_add(A, $$, $4->kids[i]); }
    | RUN NAME { $$ = named(ls, AST_RUN, @2, $2); }
    | RUN NAME '(' exprs ')' { $$ = named(ls, AST_RUN, @2, $2); for (uint32_t i = 0; i < $4->nkids; i++) ast_add(A, $$, $4->kids[i]); }
    | MAY expr STRING block { $$ = N(AST_MAY, @1); ast_add(A, $$, $2); node *s = N(AST_STR, @3); s->str = $3; ast_add(A, $$, s); ast_add(A, $$, $4); }
    | ACT expr ':' act_names { $$ = N(AST_ACT, @1); ast_add(A, $$, $2); ast_add(A, $$, $4); }
    | SECRET NAME IN expr block { $$ = named(ls, AST_SECRET, @2, $2); ast_add(A, $$, $4); ast_add(A, $$, $5); }
    | CANCEL expr FOR NAME {
        $$ = N(AST_CANCEL, @1); ast_add(A, $$, $2); ast_add(A, $$, NULL);
        if (!strcmp($4, "once")) $$->ival = SCOPE_ONCE; else if (!strcmp($4, "phase")) $$->ival = SCOPE_PHASE;
        else if (!strcmp($4, "turn")) $$->ival = SCOPE_TURN; else if (!strcmp($4, "game")) $$->ival = SCOPE_GAME;
        else mterror(&@4, NULL, ls, "cancellation scope must be 'once', 'phase', 'turn' or 'game'"); }
    | CANCEL expr FOR PHASE { $$ = N(AST_CANCEL, @1); ast_add(A, $$, $2); ast_add(A, $$, NULL); $$->ival = SCOPE_PHASE; }
    | CANCEL expr FOR GAME { $$ = N(AST_CANCEL, @1); ast_add(A, $$, $2); ast_add(A, $$, NULL); $$->ival = SCOPE_GAME; }
    | LOG STRING { $$ = N(AST_LOG, @1); node *s = N(AST_STR, @2); s->str = $2; ast_add(A, $$, s); }
    | LOG FOR expr STRING { $$ = N(AST_LOG, @1); node *s = N(AST_STR, @4); s->str = $4; ast_add(A, $$, s); ast_add(A, $$, $3); }
    | FINISH { $$ = N(AST_FINISH, @1); }
    | NAME '(' exprs ')' { node *c = named(ls, AST_CALL, @$, $1); for (uint32_t i = 0; i < $3->nkids; i++) ast_add(A, c, $3->kids[i]);
                           $$ = N(AST_EXPRSTMT, @$); ast_add(A, $$, c); }
    ;
else_part: %empty { $$ = NULL; }
         | ELSE block { $$ = $2; }
         | ELSE IF expr block else_part { $$ = N(AST_IF, @2); ast_add(A, $$, $3); ast_add(A, $$, $4); ast_add(A, $$, $5); }
         ;

exprs: %empty { $$ = N(AST_LIST, @$); }
     | expr { $$ = N(AST_LIST, @1); ast_add(A, $$, $1); }
     | exprs ',' expr { $$ = ast_add(A, $1, $3); }
     ;

expr: INT { $$ = N(AST_INT, @1); $$->ival = $1; }
    | TRUE { $$ = N(AST_BOOL, @1); $$->ival = 1; }
    | FALSE { $$ = N(AST_BOOL, @1); $$->ival = 0; }
    | NONE { $$ = N(AST_NONE, @1); }
    | STRING { $$ = N(AST_STR, @1); $$->str = $1; }
    | NAME { $$ = named(ls, AST_NAME, @1, $1); }
    | COST { $$ = named(ls, AST_NAME, @1, "cost"); } /* the action's cost, in guards and effects */
    | PHASE { $$ = named(ls, AST_NAME, @1, "phase"); } /* a data variable may be called phase */
    | KARAMA { $$ = named(ls, AST_NAME, @1, "karama"); } /* and a card karama */
    | VALUE { $$ = named(ls, AST_NAME, @1, "value"); } /* and an attribute value: attr(c, value) */
    | RULEID { $$ = named(ls, AST_RULEREF, @1, $1); }
    | NAME '(' exprs ')' { $$ = named(ls, AST_CALL, @$, $1); for (uint32_t i = 0; i < $3->nkids; i++) ast_add(A, $$, $3->kids[i]); }
    | '(' expr ')' { $$ = $2; }
    | '{' exprs '}' { $$ = N(AST_SETLIT, @$); for (uint32_t i = 0; i < $2->nkids; i++) ast_add(A, $$, $2->kids[i]); }
    | '[' NAME IN expr opt_where ']' { $$ = named(ls, AST_COMPREHENSION, @$, $2); ast_add(A, $$, $4); ast_add(A, $$, $5); }
    | AGG '(' NAME IN expr opt_where ':' expr ')' {
        $$ = named(ls, AST_AGGREGATE, @$, $3); $$->op = (uint16_t)$1; ast_add(A, $$, $5); ast_add(A, $$, $6); ast_add(A, $$, $8); }
    | CAN '(' expr ':' act_names ')' { $$ = N(AST_CAN, @$); ast_add(A, $$, $3); ast_add(A, $$, $5); }
    | ASK expr STRING FROM expr %prec ASKPREC {
        $$ = N(AST_ASK, @$); ast_add(A, $$, $2); node *s = N(AST_STR, @3); s->str = $3; ast_add(A, $$, s); ast_add(A, $$, $5); }
    | '-' expr %prec UMINUS { $$ = un(ls, BOP_NEG, $2, @$); }
    | NOT expr { $$ = un(ls, BOP_NOT, $2, @$); }
    | expr '+' expr { $$ = bin(ls, '+', $1, $3, @2); }
    | expr '-' expr { $$ = bin(ls, '-', $1, $3, @2); }
    | expr '*' expr { $$ = bin(ls, '*', $1, $3, @2); }
    | expr '/' expr { $$ = bin(ls, '/', $1, $3, @2); }
    | expr '%' expr { $$ = bin(ls, '%', $1, $3, @2); }
    | expr '&' expr { $$ = bin(ls, '&', $1, $3, @2); }
    | expr '|' expr { $$ = bin(ls, '|', $1, $3, @2); }
    | expr EQ expr { $$ = bin(ls, BOP_EQ, $1, $3, @2); }
    | expr NE expr { $$ = bin(ls, BOP_NE, $1, $3, @2); }
    | expr '<' expr { $$ = bin(ls, '<', $1, $3, @2); }
    | expr LE expr { $$ = bin(ls, BOP_LE, $1, $3, @2); }
    | expr '>' expr { $$ = bin(ls, '>', $1, $3, @2); }
    | expr GE expr { $$ = bin(ls, BOP_GE, $1, $3, @2); }
    | expr IN expr { $$ = bin(ls, BOP_IN, $1, $3, @2); }
    | expr AND expr { $$ = bin(ls, BOP_AND, $1, $3, @2); }
    | expr OR expr { $$ = bin(ls, BOP_OR, $1, $3, @2); }
    | expr DOTDOT expr { $$ = N(AST_RANGE, @2); ast_add(A, $$, $1); ast_add(A, $$, $3); }
    | expr '?' expr ':' expr { $$ = N(AST_COND, @2); ast_add(A, $$, $1); ast_add(A, $$, $3); ast_add(A, $$, $5); }
    ;
%%

static void mterror(mt_span *loc, void *scanner, struct lex_state *ls, const char *msg) {
  (void)scanner;
  if (strcmp(msg, "memory exhausted") == 0)
    lex_error(ls, *loc, "input is nested too deeply (more than %d levels)", YYMAXDEPTH / 4);
  else
    lex_error(ls, *loc, "%s", msg);
}

/* "unexpected X, expected A, B or C" with the caret on the unexpected token. */
/* A token as a message shows it: keywords and operators quoted ('rule', '=='),
 * kinds of token by their description (name, string, end of input). */
static const char *token_text(yysymbol_kind_t k, char *buf, size_t cap) {
  const char *s = yysymbol_name(k);
  switch (k) {
  case YYSYMBOL_NAME: case YYSYMBOL_STRING: case YYSYMBOL_INT: case YYSYMBOL_RULEID: case YYSYMBOL_AGG:
  case YYSYMBOL_START_EXPR: case YYSYMBOL_YYEOF: case YYSYMBOL_YYerror: case YYSYMBOL_YYUNDEF:
    return s;
  default:
    if (s[0] == '\'' || s[0] == '"') return s;
    snprintf(buf, cap, "'%s'", s);
    return buf;
  }
}

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct lex_state *ls) {
  (void)scanner;
  enum { MAXEXP = 8 };
  yysymbol_kind_t exp[MAXEXP];
  int n = yypcontext_expected_tokens(ctx, exp, MAXEXP);
  yysymbol_kind_t tok = yypcontext_token(ctx);
  const mt_span *loc = yypcontext_location(ctx);
  if (tok == YYSYMBOL_YYEOF) ls->incomplete = 1;
  char buf[64];
  strbuf b = {0};
  if (tok == YYSYMBOL_YYUNDEF) sb_puts(&b, "invalid character");
  else sb_printf(&b, "unexpected %s", token_text(tok, buf, sizeof buf));
  if (n > 0) {
    sb_puts(&b, ", expected ");
    for (int i = 0; i < n; i++)
      sb_printf(&b, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", token_text(exp[i], buf, sizeof buf));
  }
  lex_error(ls, *loc, "%s", b.s);
  sb_free(&b);
  return 0;
}
