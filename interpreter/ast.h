/* ast.h -- the syntax tree between the parser and the resolver.
 *
 * One generic node shape (kind, span, name, integer, children) keeps the
 * bison actions short; the meaning of each child slot is listed per kind
 * below.  Every node lives in the compilation's arena.
 */
#ifndef MENTAT_AST_H
#define MENTAT_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "util.h"

typedef enum {
  /* declarations ------------------------------------------------------- */
  AST_FILE,     /* kids: declarations */
  AST_EVENT,    /* name; kids: params (AST_PARAM) */
  AST_VARDECL,  /* name; kids[0] params list (AST_LIST), [1] type, [2] init or NULL; flags 1: secret */
  AST_RULE,     /* name = rule id, str = title, ival = form (RF_*), flags = tags (TAG_*),
                   kids[0] links (AST_LIST of AST_LINK), [1] members (AST_LIST) */
  AST_LINK,     /* op = LINK_SUPERSEDES/LINK_AMENDS, name = target rule id; flags AST_LINK_OPTIONAL */
  AST_FACTION,  /* name = faction id; str = title; kids: rules */
  AST_CARD,     /* name = card id; str = title; kids: rules */
  AST_VARIANT,  /* name; str = title; kids[0] base name (AST_NAME) or NULL, [1..] items:
                   rules, AST_DISABLE, AST_REPLACE, faction/card blocks; flags AST_VARIANT_PART:
                   `variant NAME in HOST`, kids[0] is the host, whose part it is (no base) */
  AST_DISABLE,  /* name = rule id */
  AST_REPLACE,  /* name = rule id; kids[0] members (AST_LIST) */
  AST_ORDER,    /* `order triggers by NAME`: name = value name */
  /* rule members ------------------------------------------------------- */
  AST_VALUE,    /* name; kids[0] params (AST_LIST of AST_PARAM or pattern exprs),
                   [1] result type or NULL, [2] when-guard or NULL, [3] body expr */
  AST_ACTION,   /* name; kids[0] params, [1] items (AST_LIST of REQUIRE/FORBID/COST/EFFECT) */
  AST_CHECK,    /* name = action; kids[0] params (binders), [1] where or NULL, [2] items */
  AST_REQUIRE,  /* kids[0] cond; name = because rule id or NULL */
  AST_FORBID,   /* kids[0] cond; name = because rule id or NULL */
  AST_COST,     /* kids[0] expr */
  AST_EFFECT,   /* kids[0] block */
  AST_KINDS,    /* `is K1, K2`: kids: the kind names (AST_NAME) an action (or a check's action) is of */
  AST_VERB,     /* `verb NAME(params) = ACTION(args)`: name; kids[0] params, [1] the action call (AST_CALL) */
  AST_TRIGGER,  /* op = TRIG_*; name = event; kids[0] binders (AST_LIST of AST_NAME),
                   [1] where or NULL, [2] block */
  AST_PROC,     /* `procedure NAME(params) { }`: name; kids[0] params, [1] block */
  AST_INVARIANT,/* `invariant "text" EXPR [repair BLOCK]`: str = text; kids[0] condition, kids[1] repair (or absent) */
  AST_BODY,     /* the statements of a step/phase/game rule: kids[0] block */
  AST_PARAM,    /* name; kids[0] type; kids[1] domain (set or range expression) or NULL */
  AST_TYPE,     /* ival = base type (TY_*); op = 1 for `set of` */
  /* statements --------------------------------------------------------- */
  AST_BLOCK,    /* kids: statements */
  AST_LET,      /* name; kids[0] expr */
  AST_ASSIGN,   /* name = variable; kids[0] args (AST_LIST), [1] expr */
  AST_IF,       /* kids[0] cond, [1] then block, [2] else (block / IF) or NULL */
  AST_FOR,      /* name = loop var; kids[0] iterable, [1] where or NULL, [2] order key or NULL, [3] block */
  AST_BREAK,
  AST_SIGNAL,   /* name = event; kids: args */
  AST_RUN,      /* name = phase/step/procedure; kids: args */
  AST_MAY,      /* kids[0] faction, [1] prompt (AST_STR), [2] block */
  AST_ACT,      /* kids[0] faction, [1] actions (AST_LIST of AST_NAME; ival 1: `any KIND`) */
  AST_SECRET,   /* name = loop var; kids[0] set, [1] block */
  AST_CANCEL,   /* kids[0] rule expr; ival = scope (SCOPE_*); kids[1] faction or NULL */
  AST_LOG,      /* kids[0] message (AST_STR with {expr} holes: kids of the STR); kids[1] the audience (log for S), or absent */
  AST_FINISH,   /* end the game */
  AST_EXPRSTMT, /* kids[0] call */
  /* expressions -------------------------------------------------------- */
  AST_INT,      /* ival */
  AST_BOOL,     /* ival */
  AST_NONE,
  AST_STR,      /* str; kids: interpolated expressions, name unused */
  AST_NAME,     /* name */
  AST_RULEREF,  /* name = rule id */
  AST_CALL,     /* name; kids: args */
  AST_UNARY,    /* op; kids[0] */
  AST_BINARY,   /* op; kids[0], kids[1] */
  AST_COND,     /* kids[0] ? kids[1] : kids[2] */
  AST_SETLIT,   /* kids: elements */
  AST_COMPREHENSION, /* {name in kids[0] where kids[1]} */
  AST_AGGREGATE,/* op = AGG_*; name = var; kids[0] iterable, [1] where or NULL, [2] expr or NULL */
  AST_RANGE,    /* kids[0]..kids[1] */
  AST_ASK,      /* kids[0] faction, [1] prompt (AST_STR), [2] from-expr (set or range) */
  AST_CAN,      /* `can(F: actions)`: kids[0] faction, [1] actions as for AST_ACT; sym = list */
  AST_LIST,     /* generic list */
  AST__COUNT
} ast_kind;

/* rule forms */
enum { RF_RULE, RF_ABILITY, RF_VALUE, RF_ACTION, RF_PHASE, RF_STEP, RF_GAME };
/* tags (bit flags) */
enum {
  TAG_BASIC = 1 << 0,
  TAG_ADVANCED = 1 << 1,
  TAG_ALLIANCE = 1 << 2,
  TAG_NOTE = 1 << 3,
  TAG_KARAMA_BEFORE = 1 << 4,
  TAG_KARAMA_AFTER = 1 << 5,
};
#define TAG_KARAMA (TAG_KARAMA_BEFORE | TAG_KARAMA_AFTER)
enum { LINK_SUPERSEDES, LINK_AMENDS };
enum { AST_LINK_OPTIONAL = 1 }; /* AST_LINK flags: `ID?`, a target the pack may lack (dropped when absent) */
enum { AST_VARIANT_PART = 1 }; /* AST_VARIANT flags: a part of its host variant (`variant NAME in HOST`) */
enum { TRIG_BEFORE, TRIG_AFTER, TRIG_INSTEAD, TRIG_ON };
enum { SCOPE_ONCE, SCOPE_PHASE, SCOPE_TURN, SCOPE_GAME };
enum { AGG_COUNT, AGG_SUM, AGG_MIN, AGG_MAX, AGG_ANY, AGG_ALL, AGG_MINBY, AGG_MAXBY };
/* base types; the order is part of the bytecode format (type tags in decisions) */
enum {
  TY_ERROR, TY_INT, TY_BOOL, TY_FACTION, TY_TERRITORY, TY_SECTOR, TY_CARD, TY_LEADER,
  TY_KIND, TY_POOL, TY_PILE, TY_PILENAME, TY_LOC, TY_TAG, TY_ATTR, TY_RULE, TY_STR, TY_VOID, TY__COUNT
};
/* binary operators: the token characters, plus these for multi-char ones */
enum { BOP_EQ = 256, BOP_NE, BOP_LE, BOP_GE, BOP_AND, BOP_OR, BOP_NOT, BOP_IN, BOP_NEG };

typedef struct node node;
struct node {
  uint16_t kind;
  uint16_t op;
  uint32_t flags;
  mt_span span;
  const char *name;
  const char *str;
  int64_t ival;
  node **kids;
  uint32_t nkids, capkids;
  /* filled by the checker */
  int32_t ty;   /* TY_* (set types: ty | TY_SETBIT) */
  int32_t sym;  /* resolved symbol index, meaning depends on kind */
  int32_t slot; /* local slot for names/lets/loops */
};
#define TY_SETBIT 0x100

node *ast_new(arena *a, ast_kind kind, mt_span span);
node *ast_add(arena *a, node *parent, node *kid); /* appends (kid may be NULL); returns parent */
node *ast_kid(const node *n, uint32_t i);           /* NULL when absent */
const char *ast_kind_name(int kind);
/* span covering both nodes */
mt_span ast_join(mt_span a, mt_span b);

/* Parses one source buffer (already registered in DIAG as FILE) into an
 * AST_FILE.  Syntax errors go to DIAG; the tree is still returned, with the
 * declarations that parsed.  Sets *incomplete when the input ended in the
 * middle of a construct (the REPL asks for a continuation line). */
node *ast_parse(arena *a, diag *d, uint32_t file, bool *incomplete);
/* Parses the buffer as one expression (console queries); NULL on errors. */
node *ast_parse_expr(arena *a, diag *d, uint32_t file);

#endif
