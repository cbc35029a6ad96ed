/* check.h -- annotations the checker leaves on AST nodes for the compiler. */
#ifndef MENTAT_CHECK_H
#define MENTAT_CHECK_H

/* node->op of AST_NAME after checking */
enum { REF_LOCAL = 1, REF_CONST, REF_BUILTIN, REF_VALUE, REF_VAR };
/* node->op of AST_CALL / AST_EXPRSTMT call after checking */
enum { CALL_BUILTIN = 1, CALL_VALUE, CALL_VAR, CALL_ATTR, CALL_TOTAL };
/* AST_CALL with CALL_ATTR: ival = ATTR_AREA/FACTION/CARD, sym = attribute index */
enum { ATTR_AREA, ATTR_FACTION, ATTR_CARD };
/* AST_RUN: op = RUN_PROC (sym = proc) or RUN_RULE (sym = rule) */
enum { RUN_PROC = 1, RUN_RULE };
#define TY_NONE 64  /* the type of `none`, compatible with every entity type */
#define TY_RANGE 65 /* a..b */

/* builtin table, from builtins.def */
typedef struct builtin_info {
  const char *name;
  int ret;
  int effect;
  int nargs;
  int args[5];
  const char *doc;
} builtin_info;
extern const builtin_info sema_builtins[];
extern const int sema_nbuiltins;
enum {
#define B(name, ret, eff, n, a0, a1, a2, a3, a4, doc) BI_##name,
#include "builtins.def"
#undef B
  BI__COUNT
};

#endif
