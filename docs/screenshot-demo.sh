# The screen of docs/screenshot.png: run it in a 100x32 pane at the root of the repository, then
# tmux-mcp call screenshot_pane (a clean bash: PS1='$ '; clear first).
printf '\033[1m$ go test ./...\033[0m\n'
printf '\033[32mok  \033[0m  github.com/tmux-mcp/tmux-mcp/screen      0.05s\n'
printf '\033[32mok  \033[0m  github.com/tmux-mcp/tmux-mcp/screenshot  0.14s\n'
printf '\033[1;31m--- FAIL: TestRecordSession (0.31s)\033[0m\n'
printf '    record_test.go:72: summary \033[33m{Resizes:0}\033[0m, want \033[36m{Resizes:1}\033[0m\n'
printf '\033[41;97m FAIL \033[0m github.com/tmux-mcp/tmux-mcp/record  \033[2m0.31s\033[0m\n\n'
printf '\033[1m$ git log --oneline --graph -4\033[0m\n'
git log --color=always --format='%C(yellow)%h%C(reset) %C(green)%<(12,trunc)%ad%C(reset) %<(70,trunc)%s' --date=short -4
printf '\n\033[1m$ palette\033[0m\n'
for i in $(seq 0 15); do printf '\033[48;5;%dm  ' $i; done; printf '\033[0m\n'
for i in $(seq 16 6 231); do printf '\033[48;5;%dm ' $i; done; printf '\033[0m\n'
for i in $(seq 0 4 255); do printf '\033[48;2;%d;%d;200m ' $i $((255-i)); done; printf '\033[0m\n'
printf '\033[1mbold\033[0m \033[2mdim\033[0m \033[3mitalic\033[0m \033[4munderline\033[0m \033[4:3mcurly\033[0m \033[7mreverse\033[0m \033[9mstrike\033[0m \033[53moverline\033[0m  wide: 中文 😀\n'
printf '┌──────────┬──────────┐\n│ \033[36mbox\033[0m      │ ▁▂▃▄▅▆▇█ │\n└──────────┴──────────┘\n'
printf '\033[44;97m %-98s\033[0m\n' 'a status bar: background-only cells to the end of the line'
