import Testing

@testable import VAToolbox

/// The Swift values the LibAV layer speaks, checked against libav's own answers.
@Suite struct LibAVLayerTests {
    /// Every layout a FourCC maps to is the one `ffmpeg -pix_fmt` names as this layer does.
    @Test func pixelLayoutsAreTheOnesFFmpegNames() {
        let names: [PixelLayout: String] = [
            .yuv420p: "yuv420p", .yuvj420p: "yuvj420p", .nv12: "nv12", .p010le: "p010le", .nv16: "nv16",
            .p210le: "p210le", .nv24: "nv24", .p410le: "p410le", .bgra: "bgra", .rgb24: "rgb24",
            .yuv422p: "yuv422p", .yuvj422p: "yuvj422p", .yuv444p: "yuv444p", .yuvj444p: "yuvj444p", .gray8: "gray",
            .yuv420p10le: "yuv420p10le", .yuv422p10le: "yuv422p10le", .yuv444p10le: "yuv444p10le",
            .yuv420p12le: "yuv420p12le", .yuv422p12le: "yuv422p12le", .yuv444p12le: "yuv444p12le",
            .gray10le: "gray10le", .yuv440p: "yuv440p", .yuvj440p: "yuvj440p", .yuv440p10le: "yuv440p10le",
            .yuv440p12le: "yuv440p12le", .vaapi: "vaapi",
        ]
        for (layout, name) in names { #expect(layout.name == name) }
        for row in PixelFormat.ffmpegTable { #expect(names[row.ffmpeg] != nil, "\(row.format)") }
    }

    /// A codec's name and ID go both ways.
    @Test func codecIDsRoundTripTheirNames() {
        for name in ["h264", "hevc", "av1", "vp9", "vp8", "mpeg2video"] {
            #expect(CodecID(name: name)?.name == name)
        }
        #expect(CodecID(name: "no such codec") == nil)
    }

    /// The version the workarounds are keyed on is the one `LinkedLibraries` reports.
    @Test func libavcodecVersionIsTheLinkedOne() {
        let reported = LinkedLibraries.all.first { $0.name == "libavcodec" }?.version
        #expect(LibavcodecVersion.linked.description == reported)
        #expect(LibavcodecVersion.linked >= LibavcodecVersion(major: 59))
        #expect(LibavcodecVersion.ffmpeg5_1 < LibavcodecVersion(major: 60))
        #expect(LibavcodecVersion.linked.racesOnFieldPairsWithFrameThreads)
    }
}
