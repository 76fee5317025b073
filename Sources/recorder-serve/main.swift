// `recorder-serve`: the `recorder` command with the page in it (`serve`, `record --serve`). `recorder` becomes
// this executable when asked for the page (RecorderCommandLine's Companion.swift); run alone, it is the same
// command.
import RecorderCommandLine

Companion.register(Page())
RecorderCommand.start()
