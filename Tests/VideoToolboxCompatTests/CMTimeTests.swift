import Foundation
import Testing
import VideoToolbox

/// CMTime.h as Core Media code calls it: the macros (under the names Apple's Swift overlay gives
/// them), the descriptions, the arithmetic and the dictionary form.
@Suite struct CMTimeTests {
    /// A time rounded when converted: 1/3 s at timescale 10.
    static let rounded = CMTimeConvertScale(CMTimeMake(value: 1, timescale: 3), timescale: 10, method: .default)

    @Test func macrosClassifyEveryKindOfTime() {
        // (time, valid, numeric, indefinite, +∞, −∞, rounded)
        let cases: [(CMTime, Bool, Bool, Bool, Bool, Bool, Bool)] = [
            (kCMTimeZero, true, true, false, false, false, false),
            (CMTimeMake(value: 1001, timescale: 30000), true, true, false, false, false, false),
            (Self.rounded, true, true, false, false, false, true),
            (kCMTimeInvalid, false, false, false, false, false, false),
            (CMTime(value: 5, timescale: 0, flags: [], epoch: 0), false, false, false, false, false, false),
            (kCMTimeIndefinite, true, false, true, false, false, false),
            (kCMTimePositiveInfinity, true, false, false, true, false, false),
            (kCMTimeNegativeInfinity, true, false, false, false, true, false),
        ]
        for (time, valid, numeric, indefinite, positive, negative, rounded) in cases {
            #expect(CMTIME_IS_VALID(time) == valid, "\(time)")
            #expect(CMTIME_IS_INVALID(time) == !valid, "\(time)")
            #expect(CMTIME_IS_NUMERIC(time) == numeric, "\(time)")
            #expect(CMTIME_IS_INDEFINITE(time) == indefinite, "\(time)")
            #expect(CMTIME_IS_POSITIVEINFINITY(time) == positive, "\(time)")
            #expect(CMTIME_IS_NEGATIVEINFINITY(time) == negative, "\(time)")
            #expect(CMTIME_HAS_BEEN_ROUNDED(time) == rounded, "\(time)")
        }
        #expect(Self.rounded.value == 3)
    }

    /// `{value/timescale = seconds}` for numbers, the kind in braces otherwise (a CMSampleBuffer's
    /// description on macOS prints `outputPTS = {INVALID}`).
    @Test func descriptionsReadAsCoreMedias() throws {
        let expected: [(CMTime, String)] = [
            (CMTimeMake(value: 1001, timescale: 30000), "{1001/30000 = 0.033}"),
            (CMTimeMake(value: -3, timescale: 2), "{-3/2 = -1.500}"),
            (kCMTimeZero, "{0/1 = 0.000}"),
            (kCMTimeInvalid, "{INVALID}"),
            (kCMTimeIndefinite, "{INDEFINITE}"),
            (kCMTimePositiveInfinity, "{+INFINITY}"),
            (kCMTimeNegativeInfinity, "{-INFINITY}"),
        ]
        for (time, text) in expected {
            #expect(CMTimeCopyDescription(allocator: kCFAllocatorDefault, time: time) == text as NSString)
        }
        let shown = try StandardErrorCapture.lines(containing: "/7 = ") {
            CMTimeShow(CMTimeMake(value: 22, timescale: 7))
        }
        #expect(shown == "{22/7 = 3.143}\n")
    }

    @Test func arithmeticFollowsCoreMedia() {
        let second = CMTimeMake(value: 1, timescale: 1)
        let frame = CMTimeMake(value: 1001, timescale: 30000)
        #expect(CMTimeSubtract(second, frame) == CMTimeMake(value: 28999, timescale: 30000))
        #expect(CMTimeAbsoluteValue(CMTimeMake(value: -5, timescale: 2)) == CMTimeMake(value: 5, timescale: 2))
        #expect(CMTimeMinimum(second, frame) == frame)
        #expect(CMTimeMaximum(second, frame) == second)
        #expect(CMTimeMultiplyByFloat64(second, multiplier: 0.5) == CMTimeMake(value: 1, timescale: 2))
        #expect(CMTimeMultiplyByRatio(frame, multiplier: 3, divisor: 1001) == CMTimeMake(value: 3, timescale: 30000))
        #expect(CMTimeCompare(kCMTimePositiveInfinity, second) == 1)
        #expect(CMTimeCompare(kCMTimeNegativeInfinity, second) == -1)
        #expect(CMTIME_IS_INVALID(CMTimeAdd(kCMTimePositiveInfinity, kCMTimeNegativeInfinity)))
        let epoch = CMTimeMakeWithEpoch(value: 10, timescale: 1, epoch: 2)
        #expect(epoch.epoch == 2 && CMTimeGetSeconds(epoch) == 10)
        #expect(CMTimeGetSeconds(CMTimeMakeWithSeconds(0.5, preferredTimescale: 600)) == 0.5)
        #expect(kCMTimeMaxTimescale == Int32.max)
    }

    @Test func dictionaryFormUsesCoreMediasKeys() throws {
        let time = CMTimeMake(value: 1001, timescale: 30000)
        let dictionary = try #require(CMTimeCopyAsDictionary(time, allocator: kCFAllocatorDefault))
        #expect(kCMTimeValueKey == "value" && kCMTimeScaleKey == "timescale")
        #expect(kCMTimeEpochKey == "epoch" && kCMTimeFlagsKey == "flags")
        #expect((dictionary[kCMTimeValueKey] as? NSNumber)?.int64Value == 1001)
        #expect((dictionary[kCMTimeScaleKey] as? NSNumber)?.int32Value == 30000)
        #expect((dictionary[kCMTimeFlagsKey] as? NSNumber)?.uint32Value == CMTimeFlags.valid.rawValue)
        #expect((dictionary[kCMTimeEpochKey] as? NSNumber)?.int64Value == 0)
        #expect(CMTimeMakeFromDictionary(dictionary) == time)
        #expect(CMTIME_IS_INVALID(CMTimeMakeFromDictionary(nil)))
    }
}
