// vatoolbox: the command-line face of VAToolbox.
import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

let usage = """
    usage: vatoolbox <command> [options]

    commands:
      decode [--threads N] [--frames N] FILE
                           decode an H.264/HEVC file (raw Annex B, MP4, MKV, TS …) on the CPU
                           and print a summary
      probe [--nal] FILE   describe a raw H.264/HEVC (Annex B) stream: its format descriptions
                           and access units; --nal lists each access unit's NAL units
      devices [--json]     render nodes, their VA-API drivers and decode profiles, or why
                           there are none
      version              the versions of the C libraries in use
      help                 show this text

    exit status: 0 success, 1 the input could not be read, parsed or decoded cleanly, 2 bad usage
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    printError(usage)
    exit(2)
}
arguments.removeFirst()

switch command {
case "decode":
    exit(DecodeCommand.run(arguments))
case "probe":
    exit(ProbeCommand.run(arguments))
case "devices":
    exit(DevicesCommand.run(arguments))
case "device-check":
    exit(DeviceCheckCommand.run(arguments))
case "version", "--version":
    for library in LinkedLibraries.all { print(library) }
case "help", "--help", "-h":
    print(usage)
default:
    printError("vatoolbox: unknown command '\(command)'\n\n\(usage)")
    exit(2)
}
