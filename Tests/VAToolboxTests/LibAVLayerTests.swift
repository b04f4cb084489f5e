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

    /// Each workaround holds where its predicate says: every one on FFmpeg 5.1's libavcodec, the
    /// AV1 surfaces one no longer on FFmpeg 8.0's, and none before 59.
    @Test func workaroundPredicatesHoldForTheirVersions() {
        let all: [(String, KeyPath<LibavcodecVersion, Bool>)] = [
            ("field pairs", \.racesOnFieldPairsWithFrameThreads), ("VP8", \.keepsVP8SurfacesOnLargerKeyFrames),
            ("AV1", \.keepsAV1SurfacesOnNewSequences), ("HEVC", \.misdecodesHEVCProfilesBeyondRangeExtensions),
            ("failed submission", \.mishandlesFailedPictureSubmission),
            ("abandoned pictures", \.forgetsBuffersOfAbandonedPictures),
        ]
        for (name, holds) in all {
            #expect(LibavcodecVersion.ffmpeg5_1[keyPath: holds], "\(name) on 5.1")
            #expect(!LibavcodecVersion(major: 58, minor: 134, micro: 100)[keyPath: holds], "\(name) on 4.4")
            let onEight = LibavcodecVersion.ffmpeg8_0[keyPath: holds]
            #expect(onEight == (name != "AV1"), "\(name) on 8.0")
        }
        #expect(LibavcodecVersion(major: 61, minor: 19, micro: 101).keepsAV1SurfacesOnNewSequences)
    }

    /// A fault a codec names is answered by its own predicate.
    @Test func eachFaultIsKeyedOnItsPredicate() {
        let faults: [LibavcodecFault: KeyPath<LibavcodecVersion, Bool>] = [
            .vp8KeepsSurfacesOnLargerKeyFrames: \.keepsVP8SurfacesOnLargerKeyFrames,
            .av1KeepsSurfacesOnNewSequences: \.keepsAV1SurfacesOnNewSequences,
            .hevcMisdecodesProfilesBeyondRangeExtensions: \.misdecodesHEVCProfilesBeyondRangeExtensions,
        ]
        for version in [LibavcodecVersion.ffmpeg5_1, .ffmpeg8_0, LibavcodecVersion(major: 58)] {
            for (fault, predicate) in faults {
                #expect(version.has(fault) == version[keyPath: predicate], "\(fault) on \(version)")
            }
        }
        let surfaceFaults = CodecRegistry.all.map { ($0.codecType, $0.hardwareSurfaceFault) }
        for (codec, fault) in surfaceFaults {
            let expected: LibavcodecFault? =
                switch codec {
                case .vp8: .vp8KeepsSurfacesOnLargerKeyFrames
                case .av1: .av1KeepsSurfacesOnNewSequences
                default: nil
                }
            #expect(fault == expected, "\(codec)")
        }
    }
}
