# tmux-mcp shell integration for fish: OSC 133 marks and OSC 7, sourced by fish -C after the
# user's config. fish 4 marks its prompts itself: then only the directory is added.
if status is-interactive; and not set -q __tmux_mcp_marks
    set -g __tmux_mcp_marks 1
    set -l __tmux_mcp_v (string split . -- $version)
    if test "$__tmux_mcp_v[1]" -lt 4 2>/dev/null
        function __tmux_mcp_preexec --on-event fish_preexec
            printf '\e]133;C;cmdline_url=%s\a' (string escape --style=url -- $argv[1])
        end
        function __tmux_mcp_postexec --on-event fish_postexec
            printf '\e]133;D;%s\a' $status
        end
        function __tmux_mcp_prompt --on-event fish_prompt
            printf '\e]7;file://%s%s\a\e]133;A\a' $hostname (string escape --style=url -- $PWD)
        end
        if functions -q fish_prompt; and not functions fish_prompt | string match -q '*133;B*'
            functions -c fish_prompt __tmux_mcp_fish_prompt
            function fish_prompt
                __tmux_mcp_fish_prompt
                printf '\e]133;B\a'
            end
        end
    else
        function __tmux_mcp_prompt --on-event fish_prompt
            printf '\e]7;file://%s%s\a' $hostname (string escape --style=url -- $PWD)
        end
    end
end
