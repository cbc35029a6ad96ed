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
  puts("| opcode | operands | pops | pushes | meaning |");
  puts("|---|---|---|---|---|");
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    printf("| `%s` | %d | %d | %d | %s |\n", ops[i].name, ops[i].operands, ops[i].pops, ops[i].pushes, ops[i].doc);
  return 0;
}
