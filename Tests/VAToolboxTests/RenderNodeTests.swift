import Foundation
import Testing

@testable import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// Render node discovery and the reasons a node cannot be used.
@Suite struct RenderNodeTests {
    @Test func nodesAreListedInNumericOrderWithoutDuplicates() {
        let nodes = RenderNode.all()
        #expect(Set(nodes.map(\.path)).count == nodes.count)
        let numbers = nodes.compactMap { Int($0.path.split(separator: "D").last ?? "") }
        #expect(numbers == numbers.sorted())
        if nodes.isEmpty {
            #expect(!RenderNode.absenceReason().isEmpty)
        }
    }

    @Test func aMissingNodeSaysThereIsNoDevice() {
        let node = RenderNode(path: "/dev/dri/renderD999")
        #expect(node.accessError == .couldNotFindVideoDecoder)
        #expect(node.accessError?.reason.contains("no device at /dev/dri/renderD999") == true)
        #expect(node.accessError?.cause?.code == ENOENT)
        #expect(node.accessError?.hint?.contains("--device /dev/dri") == true)
        #expect(node.kernelDriver == nil)
    }

    /// `setfsuid(2)`, which the Glibc module does not import (it lives in `<sys/fsuid.h>`).
    static let setfsuid: (@convention(c) (UInt32) -> Int32)? = {
        guard let symbol = dlsym(nil, "setfsuid") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UInt32) -> Int32).self)
    }()

    /// A node the process may not open: the error names the node, errno and the group to join.
    /// As root, the test drops its file-system identity for this thread only (`setfsuid`).
    @Test func permissionDeniedNamesTheGroupToJoin() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vatb-node-\(getpid())").path
        try #require(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { unlink(path) }
        try #require(chmod(path, 0o600) == 0)
        // The fixture is read before the file-system user changes: the checkout's folder may not
        // be readable by user 65534 (a clone inside a 0700 folder).
        let stream = try TestData.bytes(TestData.fixtures.appendingPathComponent("h264-main-cabac.264"))
        let format = try #require(ElementaryStreamParser.samples(in: stream, codec: .h264).first).formatDescription
        let isRoot = geteuid() == 0
        let setFileSystemUser = try #require(Self.setfsuid, "libc has no setfsuid")
        if isRoot { _ = setFileSystemUser(65534) }
        let node = RenderNode(path: path)
        let session = Result { () throws(VTError) -> DecompressionSession in
            try DecompressionSession(
                formatDescription: format,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .required, renderNodePath: path)
            ) { _ in }
        }
        if isRoot { _ = setFileSystemUser(0) }

        let error = try #require(node.accessError)
        #expect(error == .couldNotFindVideoDecoder)
        #expect(error.reason == "permission denied opening \(path)")
        #expect(error.cause?.code == EACCES)
        #expect(error.cause?.function == "open")
        #expect(error.hint?.contains("usermod -aG") == true)
        #expect(error.hint?.contains("--group-add") == true)
        guard case .failure(let sessionError) = session else {
            Issue.record("a session was created on a node it may not open")
            return
        }
        #expect(sessionError.status == -12906)
        #expect(sessionError.reason.contains("permission denied opening \(path)"))
        #expect(sessionError.hint?.contains("usermod") == true)
    }
}
