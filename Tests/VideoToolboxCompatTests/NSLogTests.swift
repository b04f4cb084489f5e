import Foundation
import Testing
import VideoToolbox

/// `NSLog`, `String(format:)` and `NSString(format:)` with objects for `%@`, which Linux's
/// Foundation does not compile (an `NSObject` is not `CVarArg` there), print what Apple's
/// Foundation prints; calls whose arguments are all `CVarArg` are Foundation's own.
@Suite struct NSLogTests {
    static let decodeError = NSError(domain: NSOSStatusErrorDomain, code: Int(kVTVideoDecoderBadDataErr), userInfo: nil)

    /// Apple's `-[NSError description]`: `"(null)"` without a localized description, as Chrome's
    /// logs of `[NSError errorWithDomain:NSOSStatusErrorDomain code:status userInfo:nil]` show.
    @Test func anErrorPrintsAsApplesNSErrorDescription() {
        #expect(
            String(format: "%@", Self.decodeError) == "Error Domain=NSOSStatusErrorDomain Code=-12909 \"(null)\"")
        let described = NSError(
            domain: "com.example.player", code: 7,
            userInfo: [NSLocalizedDescriptionKey: "The stream ended.", "Track": 2])
        #expect(
            String(format: "%@", described)
                == "Error Domain=com.example.player Code=7 \"The stream ended.\" UserInfo={NSLocalizedDescription=The stream ended., Track=2}"
        )
        let posix = NSError(domain: NSPOSIXErrorDomain, code: Int(ENOENT), userInfo: nil)
        #expect(String(format: "%@", posix) == "Error Domain=NSPOSIXErrorDomain Code=2 \"No such file or directory\"")
        let wrapped = NSError(
            domain: NSOSStatusErrorDomain, code: -12903, userInfo: [NSUnderlyingErrorKey: Self.decodeError])
        let text = String(format: "%@", wrapped)
        #expect(
            text.hasPrefix("Error Domain=NSOSStatusErrorDomain Code=-12903 \"(null)\" UserInfo={NSUnderlyingError=0x"))
        #expect(text.hasSuffix(" {Error Domain=NSOSStatusErrorDomain Code=-12909 \"(null)\"}}"))
    }

    @Test func objectsMixWithEveryOtherConversion() {
        #expect(
            String(format: "%@ after %d frames (%.1f s), %@ left", Self.decodeError, 42, 1.5, NSNumber(value: 3))
                == "Error Domain=NSOSStatusErrorDomain Code=-12909 \"(null)\" after 42 frames (1.5 s), 3 left")
        #expect(String(format: "%2$@ then %1$@", NSNumber(value: 1), NSNumber(value: 2)) == "2 then 1")
        #expect(
            String(format: "[%-6@][%6@][%.3@]", NSNumber(value: 5), NSNumber(value: 5), "abcdef")
                == "[5     ][     5][abc]")
        #expect(String(format: "%*d|%@|%%", 4, 7, NSNumber(value: true)) == "   7|1|%")
        #expect(String(format: "%ld %x %@", NSNumber(value: 12), NSNumber(value: 255), NSNull()) == "12 ff <null>")
        let missing: NSError? = nil
        #expect(String(format: "error: %@", missing as Any) == "error: (null)")
        #expect(NSString(format: "%@", Self.decodeError) == "Error Domain=NSOSStatusErrorDomain Code=-12909 \"(null)\"")
    }

    /// Arguments that are all `CVarArg` go to Foundation's own formatter, as before.
    @Test func plainCVarArgCallsAreUnchanged() {
        #expect(String(format: "%05.1f|%x|%3d|%@", 3.14159, 255, 7, "text") == "003.1|ff|  7|text")
    }

    @Test func nsLogPrintsTheErrorToStandardError() throws {
        let log = try StandardErrorCapture.lines(containing: "NSLogTests:") {
            NSLog("NSLogTests: decompression failed: %@", Self.decodeError)
            NSLog("NSLogTests: %d frames at %.2f fps", 24, 23.976)
        }
        #expect(
            log == """
                NSLogTests: decompression failed: Error Domain=NSOSStatusErrorDomain Code=-12909 "(null)"
                NSLogTests: 24 frames at 23.98 fps

                """)
    }
}
