// vatoolbox: the command-line face of VAToolbox.
import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

let usage = """
    usage: vatoolbox <command> [options]    (vatoolbox <command> --help for each)

    commands:
      decode INPUT [-o OUT.y4m|OUT.yuv|-]   decode a stream (H.264, HEVC, AV1, VP9, VP8, MPEG-2: raw Annex B,
                                            IVF, .obu, .m2v, MP4, MKV/WebM, TS …; - for standard input),
                                            write Y4M or raw planes, print a summary
      probe INPUT [--units] [--frames] [--json]
                                            describe a stream's format descriptions and samples, with
                                            --units their NAL units, VP9 frames, AV1 OBUs, MPEG-2 pictures,
                                            with --frames each decoded picture as ffprobe -show_frames
      framemd5 INPUT                        per-picture MD5s in the format of ffmpeg -f framemd5
      snapshot INPUT --frame N -o OUT.png   one picture as PNG
      thumbnails INPUT -o OUT.png           a contact sheet of pictures with their time stamps
      frames INPUT --at N,… -o DIR          some pictures by number or time, each GOP decoded at most once
      bench INPUT [--json] [--svg OUT.svg]  decoding speed on the GPU (VA-API) and the CPU, side by side
      devices [--json]                      render nodes, their VA-API drivers and decode profiles, or why
                                            there are none
      device-check FILE...                  on a real GPU: every frame's MD5 on VA-API against the CPU
      version                               VAToolbox's version and the versions of the C libraries in use
      help                                  show this text

    decoding options (decode, framemd5, snapshot, thumbnails, frames, bench, probe --frames):
      --hwaccel auto|vaapi|none   auto: the GPU when usable, else the CPU; vaapi: the GPU or fail; none: CPU
      --device PATH               the DRM render node, e.g. /dev/dri/renderD128
      --threads N                 software decoding threads (0: one per core)
      --gpu-timeout MS            the longest wait for one GPU call before the GPU is taken to be hung (10000)

    environment (Docs/Hardware.md):
      VATOOLBOX_HWACCEL=auto|vaapi|none   what --hwaccel auto means (aliases: gpu = vaapi; cpu, off, 0 = none)
      VATOOLBOX_RENDER_NODE=PATH          the render node when --device is not given
      VATOOLBOX_FFMPEG_LOG=1, VATOOLBOX_VA_LOG=1   let libavcodec/libavformat and libva log
      VATOOLBOX_SHARED_VA_DISPLAY=1       GPU sessions share one VA display (for measuring; slower)

    exit status:
      0  success
      1  the input could not be read, parsed or decoded cleanly, or the output could not be written
      2  bad usage: unknown command or option, missing or malformed value, or a VATOOLBOX_*
         environment variable with a value it does not take
      3  no decoder for the input: a codec or profile VAToolbox does not decode, or --hwaccel vaapi
         and no usable VA-API device
    """

/// The commands, by name.
let commands: [String: ([String]) throws(CommandFailure) -> Void] = [
    "decode": DecodeCommand.run,
    "probe": ProbeCommand.run,
    "framemd5": FrameMD5Command.run,
    "snapshot": SnapshotCommand.run,
    "thumbnails": ThumbnailsCommand.run,
    "frames": FramesCommand.run,
    "bench": BenchCommand.run,
    "devices": DevicesCommand.run,
    "device-check": DeviceCheckCommand.run,
    // Hidden: one measured run of `bench`, in a child process.
    "bench-worker": BenchWorkerCommand.run,
]

signal(SIGPIPE, SIG_IGN)
// A VATOOLBOX_* variable with a value it does not take is bad usage, said in one line.
do throws(VTError) {
    try EnvironmentVariable.validateAll()
} catch {
    printError("vatoolbox: \(error.reason)")
    exit(ExitStatus.usage)
}
// The tool reports failures itself, quoting libav's explanation. VATOOLBOX_FFMPEG_LOG shows libav's
// log on standard error: the messages of the tool's readers and sessions through a handler, the
// rest (PNG encoding, scaling) through libav's default callback. Without it, the tool silences
// what it does not claim for its own process.
if !EnvironmentVariable.ffmpegLog.isOn {
    LibavLog.silenceDefaultCallback()
} else {
    LibavLog.setHandler(upTo: .info) { message in printError(message.description) }
}
var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    printError(usage)
    exit(ExitStatus.usage)
}
arguments.removeFirst()

switch command {
case "version", "--version":
    print("vatoolbox \(PackageVersion.string)")
    for library in LinkedLibraries.all { print(library) }
case "help", "--help", "-h":
    print(usage)
default:
    guard let run = commands[command] else {
        printError("vatoolbox: unknown command '\(command)'; 'vatoolbox help' lists the commands")
        exit(ExitStatus.usage)
    }
    let descriptorsBefore = DescriptorReport.isOn ? DescriptorReport.openDescriptors() : [:]
    defer { if DescriptorReport.isOn { DescriptorReport.print(since: descriptorsBefore) } }
    do throws(CommandFailure) {
        try run(arguments)
    } catch {
        var line = "vatoolbox \(command): \(error.message)"
        if error.status == ExitStatus.usage { line += " (see 'vatoolbox \(command) --help')" }
        printError(line)
        if DescriptorReport.isOn { DescriptorReport.print(since: descriptorsBefore) }
        exit(error.status)
    }
}
