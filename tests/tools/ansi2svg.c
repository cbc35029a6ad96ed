/* ansi2svg.c -- a terminal screen, as `tmux capture-pane -e -p` prints it (text with SGR colour
 * escapes), drawn as an SVG of fixed-width cells: docs/editors.png is Neovim in tmux, captured,
 * drawn by this and rendered by rsvg-convert (tests/tools/editors-screenshot.sh).
 *
 *   ansi2svg COLS ROWS < screen.ansi > screen.svg
 *
 * Understands the SGR codes a terminal editor uses: reset, bold, italic, underline, reverse,
 * the 8/16 colours, 256-colour and 24-bit colours, foreground and background.  Each UTF-8
 * character is one cell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 400
#define MAXR 200
#define DEF_FG 0xd0d0d0u
#define DEF_BG 0x1c1c1cu

typedef struct cell {
  char ch[5];
  unsigned fg, bg;
  int bold, italic, under;
} cell;

static cell screen[MAXR][MAXC];

/* The xterm 256-colour palette. */
static unsigned palette(int n) {
  static const unsigned base[16] = {0x000000, 0xcd3131, 0x0dbc79, 0xe5e510, 0x2472c8, 0xbc3fbc, 0x11a8cd, 0xe5e5e5,
                                    0x666666, 0xf14c4c, 0x23d18b, 0xf5f543, 0x3b8eea, 0xd670d6, 0x29b8db, 0xffffff};
  if (n < 16) return base[n];
  if (n < 232) {
    n -= 16;
    int r = n / 36, g = (n / 6) % 6, b = n % 6;
    int v[6] = {0, 95, 135, 175, 215, 255};
    return (unsigned)(v[r] << 16 | v[g] << 8 | v[b]);
  }
  int l = 8 + (n - 232) * 10;
  return (unsigned)(l << 16 | l << 8 | l);
}

/* Applies the SGR parameters P[0..N) to the pen. */
static void sgr(const int *p, int n, cell *pen, int *reverse) {
  if (n == 0) {
    pen->fg = DEF_FG, pen->bg = DEF_BG, pen->bold = pen->italic = pen->under = 0, *reverse = 0;
    return;
  }
  for (int i = 0; i < n; i++) {
    int c = p[i];
    if (c == 0) pen->fg = DEF_FG, pen->bg = DEF_BG, pen->bold = pen->italic = pen->under = 0, *reverse = 0;
    else if (c == 1) pen->bold = 1;
    else if (c == 3) pen->italic = 1;
    else if (c == 4) pen->under = 1;
    else if (c == 7) *reverse = 1;
    else if (c == 22) pen->bold = 0;
    else if (c == 23) pen->italic = 0;
    else if (c == 24) pen->under = 0;
    else if (c == 27) *reverse = 0;
    else if (c >= 30 && c <= 37) pen->fg = palette(c - 30);
    else if (c >= 90 && c <= 97) pen->fg = palette(c - 90 + 8);
    else if (c >= 40 && c <= 47) pen->bg = palette(c - 40);
    else if (c >= 100 && c <= 107) pen->bg = palette(c - 100 + 8);
    else if (c == 39) pen->fg = DEF_FG;
    else if (c == 49) pen->bg = DEF_BG;
    else if ((c == 38 || c == 48) && i + 2 < n && p[i + 1] == 5) {
      unsigned v = palette(p[i + 2] & 255);
      if (c == 38) pen->fg = v;
      else pen->bg = v;
      i += 2;
    } else if ((c == 38 || c == 48) && i + 4 < n && p[i + 1] == 2) {
      unsigned v = (unsigned)((p[i + 2] & 255) << 16 | (p[i + 3] & 255) << 8 | (p[i + 4] & 255));
      if (c == 38) pen->fg = v;
      else pen->bg = v;
      i += 4;
    }
  }
}

static void xml(const char *s) {
  for (; *s; s++) {
    if (*s == '&') fputs("&amp;", stdout);
    else if (*s == '<') fputs("&lt;", stdout);
    else if (*s == '>') fputs("&gt;", stdout);
    else putchar(*s);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: ansi2svg COLS ROWS < screen.ansi > screen.svg\n"), 64;
  int cols = atoi(argv[1]), rows = atoi(argv[2]);
  if (cols < 1 || cols > MAXC || rows < 1 || rows > MAXR) return fprintf(stderr, "ansi2svg: bad size\n"), 64;
  cell pen = {"", DEF_FG, DEF_BG, 0, 0, 0};
  int reverse = 0, r = 0, c = 0, ch;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) screen[i][j] = (cell){" ", DEF_FG, DEF_BG, 0, 0, 0};
  while ((ch = getchar()) != EOF && r < rows) {
    if (ch == '\033') {
      if (getchar() != '[') continue;
      int p[32], n = 0, v = 0, any = 0;
      while ((ch = getchar()) != EOF && ((ch >= '0' && ch <= '9') || ch == ';' || ch == ':')) {
        if (ch == ';' || ch == ':') {
          if (n < 32) p[n++] = v;
          v = 0, any = 0;
        } else v = v * 10 + (ch - '0'), any = 1;
      }
      if ((any || n) && n < 32) p[n++] = v;
      if (ch == 'm') sgr(p, n, &pen, &reverse);
      continue;
    }
    if (ch == '\n') {
      r++, c = 0;
      continue;
    }
    if (ch == '\r' || c >= cols) continue;
    cell k = pen;
    if (reverse) k.fg = pen.bg, k.bg = pen.fg;
    k.ch[0] = (char)ch;
    int len = (ch & 0xe0) == 0xc0 ? 2 : (ch & 0xf0) == 0xe0 ? 3 : (ch & 0xf8) == 0xf0 ? 4 : 1;
    for (int i = 1; i < len; i++) k.ch[i] = (char)getchar();
    k.ch[len] = 0;
    screen[r][c++] = k;
  }
  const double cw = 8.4, lh = 18;
  printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"14\">\n",
         cols * cw + 16, rows * lh + 16);
  printf("<rect width=\"100%%\" height=\"100%%\" fill=\"#%06x\"/>\n<g transform=\"translate(8,8)\">\n", DEF_BG);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      if (screen[i][j].bg != DEF_BG)
        printf("<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"#%06x\"/>\n", j * cw, i * lh, cw + 0.3, lh,
               screen[i][j].bg);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      cell *k = &screen[i][j];
      if (!strcmp(k->ch, " ")) continue;
      printf("<text x=\"%.1f\" y=\"%.0f\" fill=\"#%06x\"%s%s%s>", j * cw, i * lh + 14, k->fg, k->bold ? " font-weight=\"bold\"" : "",
             k->italic ? " font-style=\"italic\"" : "", k->under ? " text-decoration=\"underline\"" : "");
      xml(k->ch);
      puts("</text>");
    }
  puts("</g>\n</svg>");
  return 0;
}
