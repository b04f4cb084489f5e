// The libFuzzer harness: Scripts/fuzz compiles this file, Tests/VAToolboxTests/Support/
// FuzzEntryPoints.swift and the library's sources into one module with `-sanitize=fuzzer,address`
// and `-D FUZZING`. `VATB_FUZZ_TARGET` chooses the target (parser, session, gpu-session);
// `VATB_FIXTURES` is Tests/Fixtures; with `VATB_FUZZ_WRITE_SEEDS=<folder>` the binary writes the
// target's seed inputs there (from the fixtures and `VATB_CONFORMANCE`) and exits.
// `VATB_FUZZ_LEAK_CHECK_EVERY=N` (session targets; Scripts/fuzz sets it) runs LeakSanitizer every
// N inputs, and on a leak writes those N inputs to `VATB_FUZZ_ARTIFACTS` as `leak-window-*`.
import Glibc

/// LeakSanitizer's check, from the AddressSanitizer runtime linked in: nonzero when it found
/// leaks (it prints them); unlike the check at exit, it lets the process go on.
@_silgen_name("__lsan_do_recoverable_leak_check")
func leakSanitizerRecoverableCheck() -> Int32

/// The harness's state, set once in `LLVMFuzzerInitialize` before any input runs.
enum FuzzHarness {
    // Written once by LLVMFuzzerInitialize, before libFuzzer runs any input on its one thread.
    nonisolated(unsafe) static var target = FuzzEntryPoints.Target.parser
    nonisolated(unsafe) static var formats: [VideoFormatDescription] = []
    nonisolated(unsafe) static var specification = DecoderSpecification()
    nonisolated(unsafe) static var driverPath = ""
    nonisolated(unsafe) static var baseline: [Int]?
    /// Inputs between two LeakSanitizer checks (0: none; libFuzzer's own per-input check then).
    nonisolated(unsafe) static var leakCheckInterval = 0
    /// Where a leak's window of inputs is written (Scripts/fuzz: Tests/Regressions/TARGET/).
    nonisolated(unsafe) static var artifacts = "."
    /// The inputs since the last leak check.
    nonisolated(unsafe) static var sinceLeakCheck: [[UInt8]] = []

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Writes a line to standard error (fd 2: the C `stderr` variable is not concurrency-safe).
    static func log(_ message: String) {
        let line = Array("FuzzMain: \(message)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    static func fail(_ message: String) -> Never {
        log(message)
        abort()
    }

    static func initialize() {
        guard let name = environment("VATB_FUZZ_TARGET"), let chosen = FuzzEntryPoints.Target(rawValue: name) else {
            fail("set VATB_FUZZ_TARGET to parser, session or gpu-session")
        }
        target = chosen
        let fixtures = environment("VATB_FIXTURES") ?? "Tests/Fixtures"
        if target != .parser {
            formats = FuzzEntryPoints.sessionFixtures.map { name in
                guard let first = FuzzEntryPoints.fixtureSamples(name, fixtures: fixtures).first else {
                    fail("no samples in \(fixtures)/\(name)")
                }
                return first.formatDescription
            }
        }
        switch target {
        case .parser: break
        case .session:
            specification = DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1)
        case .gpuSession:
            specification = DecoderSpecification(
                hardwareAcceleration: .required, renderNodePath: "/dev/null", threadCount: 1)
            driverPath = (environment("LIBVA_DRIVERS_PATH") ?? ".") + "/libvatbtest_drv_video.so"
            guard let objects = FuzzEntryPoints.driverLiveObjects(driverPath: driverPath) else {
                fail("cannot read the live objects of \(driverPath)")
            }
            baseline = objects
        }
        leakCheckInterval = environment("VATB_FUZZ_LEAK_CHECK_EVERY").flatMap { Int($0) } ?? 0
        artifacts = environment("VATB_FUZZ_ARTIFACTS") ?? "."
        if let folder = environment("VATB_FUZZ_WRITE_SEEDS") {
            writeSeeds(to: folder, fixtures: fixtures, conformance: environment("VATB_CONFORMANCE"))
            exit(0)
        }
    }

    static func run(_ data: [UInt8]) {
        switch target {
        case .parser:
            FuzzEntryPoints.parse(data)
        case .session, .gpuSession:
            let problems = FuzzEntryPoints.decode(data, formats: formats, specification: specification)
            if !problems.isEmpty { fail(problems.joined(separator: "; ")) }
            if let baseline {
                let now = FuzzEntryPoints.driverLiveObjects(driverPath: driverPath)
                if now != baseline { fail("VA objects \(now ?? []) after the input, \(baseline) before") }
            }
            checkLeaks(after: data)
        }
    }

    /// Every `leakCheckInterval` inputs, runs LeakSanitizer over the whole heap; a leak writes the
    /// inputs since the previous check (one of them leaked) and stops.
    ///
    /// The session targets need this instead of libFuzzer's per-input check: libdispatch's worker
    /// threads free a session's queue and their own caches after the input returns, so libFuzzer
    /// sees more mallocs than frees after nearly every input and runs a full LeakSanitizer scan
    /// each time (about 80% of the CPU time) until it gives up after 1,000 of them and checks no more.
    /// A scan every N inputs costs 1/N of that and never stops; LeakSanitizer also checks at exit.
    static func checkLeaks(after data: [UInt8]) {
        guard leakCheckInterval > 0 else { return }
        sinceLeakCheck.append(data)
        guard sinceLeakCheck.count >= leakCheckInterval else { return }
        defer { sinceLeakCheck.removeAll(keepingCapacity: true) }
        guard leakSanitizerRecoverableCheck() != 0 else { return }
        let stamp = time(nil)
        for (index, input) in sinceLeakCheck.enumerated() {
            write(input, to: "\(artifacts)/leak-window-\(stamp)-\(index)")
        }
        fail(
            "LeakSanitizer found a leak within the last \(sinceLeakCheck.count) inputs, written to "
                + "\(artifacts)/leak-window-\(stamp)-*: replay each alone to find it")
    }

    // MARK: - Seeds

    static func write(_ bytes: [UInt8], to path: String) {
        guard let file = fopen(path, "wb") else { fail("cannot write \(path)") }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }

    static func files(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let path = folder + "/" + name
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFDIR {
                names += files(in: path)
            } else {
                names.append(path)
            }
        }
        return names.sorted()
    }

    /// Which parsers read a file, by its name's ending (indices into `FuzzEntryPoints.parsers`).
    static func parsers(for path: String) -> [String] {
        let name = path.lowercased()
        for (endings, parsers) in [
            ([".264", ".h264", ".jsv", ".avc", ".26l", ".jvt"], ["annexb-h264", "h264-units"]),
            ([".265", ".h265"], ["annexb-hevc", "hevc-units"]),
            ([".obu", ".av1"], ["av1-low-overhead", "av1-annexb"]),
            ([".ivf"], ["ivf"]),
            ([".m2v"], ["mpeg2"]),
            ([".vp9"], ["vp9"]),
            ([".vp8"], ["vp8"]),
        ] where endings.contains(where: { name.hasSuffix($0) }) {
            return parsers
        }
        return []
    }

    static func writeSeeds(to folder: String, fixtures: String, conformance: String?) {
        mkdir(folder, 0o755)
        var count = 0
        switch target {
        case .parser:
            let sources = files(in: fixtures) + (conformance.map { files(in: $0) } ?? [])
            for path in sources {
                let parsers = parsers(for: path)
                guard !parsers.isEmpty, let bytes = FuzzEntryPoints.readFile(path) else { continue }
                for parser in parsers {
                    guard let selector = FuzzEntryPoints.parsers.firstIndex(where: { $0.name == parser }) else {
                        continue
                    }
                    count += 1
                    write([UInt8(selector)] + bytes.prefix(4095), to: "\(folder)/seed-\(count)")
                }
                // IVF frames through the VP9/VP8/AV1 frame parsers.
                if path.hasSuffix(".ivf"), var reader = try? IVFReader(bytes) {
                    let parser = ["VP90": "vp9", "VP80": "vp8", "AV01": "av1-low-overhead"][reader.fourCC]
                    let selector = FuzzEntryPoints.parsers.firstIndex { $0.name == parser }
                    for _ in 0..<3 {
                        guard let selector, let frame = try? reader.next() else { break }
                        count += 1
                        write([UInt8(selector)] + frame.data.prefix(4095), to: "\(folder)/seed-\(count)")
                    }
                }
            }
        case .session, .gpuSession:
            for (index, name) in FuzzEntryPoints.sessionFixtures.enumerated() {
                let samples = FuzzEntryPoints.fixtureSamples(name, fixtures: fixtures)
                for start in stride(from: 0, to: min(samples.count, 24), by: 8) {
                    count += 1
                    let input = FuzzEntryPoints.SessionInput.encode(
                        fixture: index, samples: Array(samples[start..<min(samples.count, start + 8)]))
                    write(input, to: "\(folder)/seed-\(count)")
                }
            }
        }
        log("wrote \(count) seeds to \(folder)")
    }
}

/// libFuzzer calls this once before the first input: reads the environment, prepares the
/// target (and writes seeds when asked).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    FuzzHarness.initialize()
    return 0
}

/// libFuzzer calls this for every input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
