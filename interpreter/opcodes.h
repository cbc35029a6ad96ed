/* opcodes.h -- the opcode enum and descriptor table, generated from opcodes.def. */
#ifndef MENTAT_OPCODES_H
#define MENTAT_OPCODES_H

typedef enum {
#define OP(name, operands, pops, pushes, doc) OP_##name,
#include "opcodes.def"
#undef OP
  OP__COUNT
} opcode;
_Static_assert(OP__COUNT <= 256, "an opcode must fit in one byte");

typedef struct op_info {
  const char *name;
  int operands, pops, pushes;
  const char *doc;
} op_info;
extern const op_info op_table[OP__COUNT];

#endif
