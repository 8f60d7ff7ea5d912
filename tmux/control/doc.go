// Package control speaks tmux's control-mode protocol (`tmux -C attach`).
//
// It is pure protocol: it reads and writes any io.Reader / io.Writer pair
// (normally the stdout and stdin of a `tmux -C attach -t <session>` process
// started elsewhere), so it can be tested over pipes.
//
// Wire facts this package relies on (measured against tmux 3.3a):
//
//   - Every command sent by the client produces one block
//     `%begin <time> <number> 1` … `%end|%error <time> <number> 1`.
//     Blocks with flags 0 (attach, hooks, config, if-shell -b) are not ours.
//   - A command list `a ; b ; c` produces one block per command; a run-time
//     error stops the list after its %error block, and a parse error yields a
//     single %error block for the whole line.
//   - Everything inside an open block is body, even lines that look like
//     guards or notifications (pane text can hold them).
//   - `%output` data escapes bytes < 0x20 and `\` as `\ooo`; all other bytes
//     arrive raw.
//   - A single-quoted word is taken literally by tmux's parser, except that
//     LF ends the command line, NUL truncates it and 0xFF reads as end of
//     input. A word holding LF goes in double quotes with escapes instead;
//     NUL and 0xFF cannot be sent (ErrUnsendable).
package control
