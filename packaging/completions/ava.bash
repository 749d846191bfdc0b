# bash completion for ava (installed to share/bash-completion/completions/ava)
_ava() {
  local cur prev words cword
  _init_completion 2> /dev/null || {
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  }
  local commands="chat acp session debug models auth backend service doctor machine mcp skill permissions settings memory automation analytics eval replay"
  local options="-h --help -V --version --log-level --profile -p --print --model --provider --cwd --session -c --continue --max-steps --system-prompt --append-system-prompt --output-format --include-partial-messages --verbose --mcp-wait --no-mcp --permission-mode --allowed-tools --disallowed-tools --record --sandbox --serve --port --no-open"
  case $prev in
    --output-format) COMPREPLY=($(compgen -W "text json stream-json" -- "$cur")); return ;;
    --permission-mode) COMPREPLY=($(compgen -W "ask accept-edits plan auto" -- "$cur")); return ;;
    --sandbox) COMPREPLY=($(compgen -W "read-only workspace-write off" -- "$cur")); return ;;
    --provider) COMPREPLY=($(compgen -W "anthropic openai openai-responses ollama lmstudio llamacpp codex mock" -- "$cur")); return ;;
    --log-level) COMPREPLY=($(compgen -W "trace debug info warn error off" -- "$cur")); return ;;
    --cwd|--record) COMPREPLY=($(compgen -d -- "$cur")); return ;;
  esac
  if ((cword == 1)); then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$options" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
    return
  fi
  local sub=
  case ${words[1]} in
    session) sub="list inspect" ;;
    debug) sub="stream" ;;
    models) sub="pull" ;;
    auth) sub="login set-key logout status" ;;
    backend) sub="start stop status restart open" ;;
    service) sub="install uninstall status logs" ;;
    machine) sub="add list remove rm test connect" ;;
    mcp) sub="add list remove enable disable test import login logout conformance-client" ;;
    skill) sub="list enable disable reset add" ;;
    memory) sub="list dream" ;;
    settings) sub="show" ;;
    automation) sub="add list show pause resume remove run-now history" ;;
    analytics) sub="show rebuild" ;;
    eval) sub="diagnose replay benchmark compare" ;;
  esac
  if [[ ${words[1]} == chat && $cur == -* ]]; then
    COMPREPLY=($(compgen -W "--help --resume -r --in-process --model --provider --cwd --max-steps --system-prompt --append-system-prompt --mcp-wait --no-mcp --permission-mode --allowed-tools --disallowed-tools --sandbox" -- "$cur"))
    return
  fi
  if [[ ${words[1]} == acp && $cur == -* ]]; then
    COMPREPLY=($(compgen -W "--help --provider --model --permission-mode --in-process" -- "$cur"))
    return
  fi
  if ((cword == 2)) && [[ -n $sub ]]; then
    COMPREPLY=($(compgen -W "$sub" -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "--help --json" -- "$cur"))
  fi
}
complete -F _ava ava
