/* check_int.h -- what the checker's two files share (check.c: names, types,
 * expressions and statements; check_decl.c: the declarations, the hook
 * tables and the entry points).  Private to them; program.h has the public
 * entry points. */
#ifndef MENTAT_CHECK_INT_H
#define MENTAT_CHECK_INT_H

#include "check.h"
#include "program.h"

typedef struct local {
  const char *name;
  int slot, ty;
} local;

typedef struct chk {
  program *p;
  diag *d;
  arena *a;
  const board_def *def;
  local locals[MAX_LOCALS];
  int nlocals;  /* visible */
  int nslots;   /* slots used by the current function */
  fn_kind kind; /* what the current expression may do */
  int loops;
  int rule;
  /* entity_const's answers by name: the same ids are looked up again and again */
  struct ent_memo {
    const char *name;
    int n;
    struct { int ty, idx; } found[8];
  } ents[512];
  int nents;
} chk;

typedef struct cands {
  const char **v;
  size_t n, cap;
} cands;

extern const program *chk_naming; /* for enum names in messages (sema_type_name) */
#define TN(ty) sema_type_name((ty), (char[48]){0}, 48)

/* types */
bool chk_compatible(int want, int got);       /* may a GOT be used where a WANT is expected? */
bool chk_is_enum(int ty);
bool chk_is_entity(int ty);                   /* a faction, territory, card, ... (an id of the data) */
int chk_domain_size(chk *c, int ty);          /* how many values type TY has (-1: not an id of the data or an enum) */
int chk_set_of(chk *c, int elem, mt_span at); /* the type "set of ELEM", or an error at AT (no such sets, or over 64 members) */
void chk_expect(chk *c, node *n, int want, int got); /* an error at N unless GOT fits WANT */
void chk_data_enums(program *p);              /* every enumeration of the data (the leader statuses are enum 0) */
int chk_enum_type(const program *p, char *const *values); /* the enum type whose names are VALUES, else int */
int chk_var_type_of_board(board_type t);      /* the language type of a board variable's type */

/* scopes: a function's locals */
void chk_begin_fn(chk *c, fn_kind k);         /* a new function of kind K: no locals yet */
int chk_declare(chk *c, const char *name, int ty, mt_span at); /* a new local: its slot */
void chk_declare_at(chk *c, const char *name, int ty, int slot, mt_span at); /* a local in a slot reserved before */

/* names */
int chk_find_value(program *p, const char *n);
int chk_find_var(program *p, const char *n);
int chk_find_event(program *p, const char *n);
int chk_find_action(program *p, const char *n);
int chk_find_proc(program *p, const char *n);
int chk_find_named_rule(program *p, const char *n);
bool chk_entity_const(chk *c, const char *name, int want, int *ty, int64_t *val); /* NAME an id of the data (of type WANT
                                                                                    if it names several): its type and index */
int chk_rule_ref(chk *c, const char *id, mt_span at); /* a rule id: its index, or -1 and an error with a suggestion */
void chk_add_kinds(chk *c, action_rec *ar, const node *is); /* the kinds of an `is` item, onto action AR */
void chk_cand(cands *cs, const char *s);      /* one candidate for "did you mean" */
void chk_unknown(chk *c, mt_span at, const char *what, const char *name, cands *cs); /* the error, with a suggestion from CS */

/* expressions and statements */
int chk_check_expr(chk *c, node *n, int want); /* types N (annotating it for compile.c): its type */
void chk_check_stmt(chk *c, node *s);
void chk_check_block(chk *c, node *blk);

#endif
