/* opdoc.c -- writes docs/opcodes.md from opcodes.def (make docs). */
#include <stdio.h>

#define OP(name, operands, pops, pushes, doc) {#name, operands, pops, pushes, doc},
static const struct {
  const char *name;
  int operands, pops, pushes;
  const char *doc;
} ops[] = {
#include "opcodes.def"
};
#undef OP

int main(void) {
  puts("# Mentat bytecode opcodes\n");
  puts("Generated from `interpreter/opcodes.def` by `make docs`; do not edit.\n");
  puts("Each instruction is one opcode byte followed by 0, 1 or 2 signed 32-bit operands (a, b).");
  puts("A stack effect of -1 depends on the operand b (an argument count).\n");
  puts("The `F_` opcodes are superinstructions (`interpreter/fuse.c`).  The compiler never emits them:");
  puts("once a rule set is compiled and verified, the first opcode byte of a common sequence is");
  puts("overwritten with one of them, and the VM runs the whole sequence in one dispatch.  The rest");
  puts("of the sequence stays in place -- its operands are read from there, so no code moves and");
  puts("jumps, resume points and saved positions are unaffected -- and a sequence that a jump");
  puts("enters in the middle is left alone.  Their stack effect is the whole sequence's.  `mentat");
  puts("disasm` marks the instructions a superinstruction runs along with its first with `|`.\n");
  puts("| opcode | operands | pops | pushes | meaning |");
  puts("|---|---|---|---|---|");
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    printf("| `%s` | %d | %d | %d | %s |\n", ops[i].name, ops[i].operands, ops[i].pops, ops[i].pushes, ops[i].doc);
  return 0;
}
