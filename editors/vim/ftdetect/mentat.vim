" *.rules files are the Mentat rules language (docs/editors.md).  `set`, not `setfiletype`: Vim's
" own detection calls *.rules Snort's "hog" rules, and this must win over it.
autocmd BufRead,BufNewFile *.rules set filetype=mentat
