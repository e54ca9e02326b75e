
#compdef ov

_ov_completion() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" _OV_COMPLETE=complete_zsh ov)
}

compdef _ov_completion ov
