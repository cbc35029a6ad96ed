/* opcodes.c -- the descriptor table of the opcodes (from opcodes.def). */
#include "opcodes.h"

const op_info op_table[OP__COUNT] = {
#define OP(name, operands, pops, pushes, doc) {#name, operands, pops, pushes, doc},
#include "opcodes.def"
#undef OP
};
