import CVAAPI
import Foundation
import Testing

@testable import VAToolbox

/// The test VA driver through libva in this process (via the statically linked DRM shim), and
/// through the `ffmpeg` CLI's VA-API hwaccel as a subprocess (via `LD_PRELOAD` of the shim).
///
/// Serialized: the in-process tests set environment variables and compare process-wide counters.
@Suite(.serialized) struct VATestDriverTests {
    // MARK: - Helpers

    /// A VA FourCC: first character in the low byte.
    static func fourCC(_ text: String) -> UInt32 {
        text.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    static func check(_ status: VAStatus, _ call: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(
            status == VA_STATUS_SUCCESS, "\(call): \(String(cString: vaErrorStr(status)))",
            sourceLocation: sourceLocation)
    }

    static func profiles(_ display: VADisplay) throws -> [VAProfile] {
        var profiles = [VAProfile](repeating: VAProfileNone, count: Int(vaMaxNumProfiles(display)))
        var count: Int32 = 0
        try check(vaQueryConfigProfiles(display, &profiles, &count), "vaQueryConfigProfiles")
        return Array(profiles.prefix(Int(count)))
    }

    static func createConfig(_ display: VADisplay, _ profile: VAProfile) -> (VAStatus, VAConfigID) {
        var config = VAConfigID(CVAAPI_INVALID_ID)
        let status = vaCreateConfig(display, profile, VAEntrypointVLD, nil, 0, &config)
        return (status, config)
    }

    static func createSurfaces(
        _ display: VADisplay, rtFormat: Int32, width: UInt32, height: UInt32, count: Int, fourCC: UInt32? = nil
    ) -> (VAStatus, [VASurfaceID]) {
        var surfaces = [VASurfaceID](repeating: VASurfaceID(CVAAPI_INVALID_ID), count: count)
        var attributes: [VASurfaceAttrib] = []
        if let fourCC {
            var attribute = VASurfaceAttrib()
            attribute.type = VASurfaceAttribPixelFormat
            attribute.flags = UInt32(VA_SURFACE_ATTRIB_SETTABLE)
            attribute.value.type = VAGenericValueTypeInteger
            attribute.value.value.i = Int32(bitPattern: fourCC)
            attributes.append(attribute)
        }
        let status = vaCreateSurfaces(
            display, UInt32(rtFormat), width, height, &surfaces, UInt32(count), &attributes, UInt32(attributes.count))
        return (status, surfaces)
    }

    /// Creates a buffer holding `value`'s bytes.
    static func buffer<T>(
        _ display: VADisplay, _ context: VAContextID, _ type: VABufferType, _ values: [T]
    ) throws -> VABufferID {
        var id = VABufferID(CVAAPI_INVALID_ID)
        var values = values
        let count = UInt32(values.count)
        let status = values.withUnsafeMutableBytes {
            vaCreateBuffer(display, context, type, UInt32(MemoryLayout<T>.stride), count, $0.baseAddress, &id)
        }
        try check(status, "vaCreateBuffer")
        return id
    }

    /// Decodes one fake H.264 picture: picture parameters with the given POCs, then for each
    /// group a slice parameter buffer (one element per slice) and a slice data buffer.
    /// Returns vaEndPicture's status and the hash the driver should stamp.
    static func decodeFakePicture(
        _ display: VADisplay, context: VAContextID, surface: VASurfaceID, top: Int32, bottom: Int32,
        groups: [[[UInt8]]], flags: Int32 = 0, continuing: FNV1a64 = FNV1a64()
    ) throws -> (VAStatus, UInt64, UInt32) {
        var hash = continuing
        var buffers: [VABufferID] = []
        var picture = VAPictureParameterBufferH264()
        picture.CurrPic.picture_id = surface
        picture.CurrPic.TopFieldOrderCnt = top
        picture.CurrPic.BottomFieldOrderCnt = bottom
        picture.CurrPic.flags = UInt32(flags)
        buffers.append(try buffer(display, context, VAPictureParameterBufferType, [picture]))
        var slices: UInt32 = 0
        for group in groups {
            var data: [UInt8] = []
            var parameters: [VASliceParameterBufferH264] = []
            for slice in group {
                var parameter = VASliceParameterBufferH264()
                parameter.slice_data_offset = UInt32(data.count)
                parameter.slice_data_size = UInt32(slice.count)
                parameters.append(parameter)
                data += slice
                data += [0xEE]  // bytes between slices must not be hashed
                hash.combineSlice(slice[...])
                slices += 1
            }
            buffers.append(try buffer(display, context, VASliceParameterBufferType, parameters))
            buffers.append(try buffer(display, context, VASliceDataBufferType, data))
        }
        try check(vaBeginPicture(display, context, surface), "vaBeginPicture")
        try check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
        let status = vaEndPicture(display, context)
        for id in buffers { try check(vaDestroyBuffer(display, id), "vaDestroyBuffer") }
        return (status, hash.value, slices)
    }

    // MARK: - In process

    @Test func initialisesThroughTheStaticShim() throws {
        let before = try TestVADriver.liveObjects()
        let display = try TestVADriver.Display()
        #expect(String(cString: vaQueryVendorString(display.display)) == TestVADriver.vendor)
        #expect(try TestVADriver.liveObjects().drivers == before.drivers + 1)
        display.terminate()
        #expect(try TestVADriver.liveObjects() == before)
    }

    @Test func profilesEntrypointsAndConfigAttributes() throws {
        let display = try TestVADriver.Display()
        let dpy = display.display
        let profiles = try Self.profiles(dpy)
        #expect(
            Set(profiles.map(\.rawValue))
                == Set(
                    [
                        VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High, VAProfileHEVCMain,
                        VAProfileHEVCMain10, VAProfileMPEG2Simple, VAProfileMPEG2Main, VAProfileVP8Version0_3,
                        VAProfileVP9Profile0, VAProfileVP9Profile2, VAProfileAV1Profile0,
                        // Video processing (Docs/TestVADriver.md, "Video processing").
                        VAProfileNone,
                    ].map(\.rawValue)))
        var processing = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(vaMaxNumEntrypoints(dpy)))
        var processingCount: Int32 = 0
        try Self.check(
            vaQueryConfigEntrypoints(dpy, VAProfileNone, &processing, &processingCount), "vaQueryConfigEntrypoints")
        #expect(Array(processing.prefix(Int(processingCount))) == [VAEntrypointVideoProc])
        for profile in profiles where profile != VAProfileNone {
            var entrypoints = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(vaMaxNumEntrypoints(dpy)))
            var count: Int32 = 0
            try Self.check(vaQueryConfigEntrypoints(dpy, profile, &entrypoints, &count), "vaQueryConfigEntrypoints")
            #expect(Array(entrypoints.prefix(Int(count))) == [VAEntrypointVLD])

            var attributes = [
                VAConfigAttribRTFormat, VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight,
                VAConfigAttribDecSliceMode, VAConfigAttribEncMaxRefFrames,
            ].map { VAConfigAttrib(type: $0, value: 0) }
            try Self.check(
                vaGetConfigAttributes(dpy, profile, VAEntrypointVLD, &attributes, Int32(attributes.count)),
                "vaGetConfigAttributes")
            let rtFormat: Int32
            switch profile {
            case VAProfileHEVCMain10, VAProfileVP9Profile2: rtFormat = VA_RT_FORMAT_YUV420_10
            case VAProfileAV1Profile0: rtFormat = VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10
            default: rtFormat = VA_RT_FORMAT_YUV420
            }
            #expect(
                attributes.map(\.value) == [UInt32(rtFormat), 4096, 4096, UInt32(VA_DEC_SLICE_MODE_NORMAL)] + [
                    VA_ATTRIB_NOT_SUPPORTED
                ])
        }
        // Encoding is not offered.
        var config = VAConfigID(0)
        #expect(
            vaCreateConfig(dpy, VAProfileH264Main, VAEntrypointEncSlice, nil, 0, &config)
                == VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT)
        #expect(Self.createConfig(dpy, VAProfileVC1Main).0 == VA_STATUS_ERROR_UNSUPPORTED_PROFILE)
    }

    @Test(arguments: [(VAProfileH264High, "NV12"), (VAProfileHEVCMain10, "P010")])
    func surfaceAttributesFollowTheConfig(profile: VAProfile, pixelFormat: String) throws {
        let display = try TestVADriver.Display()
        let dpy = display.display
        let (status, config) = Self.createConfig(dpy, profile)
        try Self.check(status, "vaCreateConfig")
        defer { vaDestroyConfig(dpy, config) }

        var profileOut = VAProfileNone
        var entrypointOut = VAEntrypoint(0)
        var attributes = [VAConfigAttrib](repeating: VAConfigAttrib(), count: Int(vaMaxNumConfigAttributes(dpy)))
        var count: Int32 = 0
        try Self.check(
            vaQueryConfigAttributes(dpy, config, &profileOut, &entrypointOut, &attributes, &count),
            "vaQueryConfigAttributes")
        #expect(profileOut == profile && entrypointOut == VAEntrypointVLD)
        #expect(attributes.prefix(Int(count)).contains { $0.type == VAConfigAttribRTFormat })

        var surfaceCount: UInt32 = 0
        try Self.check(vaQuerySurfaceAttributes(dpy, config, nil, &surfaceCount), "vaQuerySurfaceAttributes")
        var surfaceAttributes = [VASurfaceAttrib](repeating: VASurfaceAttrib(), count: Int(surfaceCount))
        try Self.check(
            vaQuerySurfaceAttributes(dpy, config, &surfaceAttributes, &surfaceCount), "vaQuerySurfaceAttributes")
        func values(_ type: VASurfaceAttribType) -> [UInt32] {
            surfaceAttributes.filter { $0.type == type }.map { UInt32(bitPattern: $0.value.value.i) }
        }
        #expect(values(VASurfaceAttribPixelFormat) == [Self.fourCC(pixelFormat)])
        #expect(values(VASurfaceAttribMinWidth) == [16] && values(VASurfaceAttribMinHeight) == [16])
        #expect(values(VASurfaceAttribMaxWidth) == [4096] && values(VASurfaceAttribMaxHeight) == [4096])
        #expect(
            values(VASurfaceAttribMemoryType)
                == [UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_VA) | UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2)])
    }

    @Test func unsupportedProfilesAndMaximumSizeFromTheEnvironment() throws {
        let display = try TestVADriver.Display(environment: [
            "VATB_UNSUPPORTED_PROFILES": "H264High,HEVCMain10", "VATB_MAX_SIZE": "640x480",
        ])
        let dpy = display.display
        let profiles = try Self.profiles(dpy).map(\.rawValue)
        #expect(!profiles.contains(VAProfileH264High.rawValue) && !profiles.contains(VAProfileHEVCMain10.rawValue))
        #expect(profiles.contains(VAProfileH264Main.rawValue))
        #expect(Self.createConfig(dpy, VAProfileH264High).0 == VA_STATUS_ERROR_UNSUPPORTED_PROFILE)
        #expect(Self.createConfig(dpy, VAProfileHEVCMain10).0 == VA_STATUS_ERROR_UNSUPPORTED_PROFILE)

        var attributes = [VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight].map {
            VAConfigAttrib(type: $0, value: 0)
        }
        try Self.check(
            vaGetConfigAttributes(dpy, VAProfileH264Main, VAEntrypointVLD, &attributes, 2), "vaGetConfigAttributes")
        #expect(attributes.map(\.value) == [640, 480])
        let tooWide = Self.createSurfaces(dpy, rtFormat: VA_RT_FORMAT_YUV420, width: 641, height: 480, count: 1)
        #expect(tooWide.0 == VA_STATUS_ERROR_RESOLUTION_NOT_SUPPORTED)

        let (status, config) = Self.createConfig(dpy, VAProfileH264Main)
        try Self.check(status, "vaCreateConfig")
        defer { vaDestroyConfig(dpy, config) }
        var context = VAContextID(0)
        #expect(
            vaCreateContext(dpy, config, 640, 481, VA_PROGRESSIVE, nil, 0, &context)
                == VA_STATUS_ERROR_RESOLUTION_NOT_SUPPORTED)
    }

    @Test func createConfigAndContextFailOnRequest() throws {
        let noConfig = try TestVADriver.Display(environment: ["VATB_FAIL_CREATE_CONFIG": "1"])
        #expect(Self.createConfig(noConfig.display, VAProfileH264Main).0 == VA_STATUS_ERROR_OPERATION_FAILED)
        noConfig.terminate()

        let display = try TestVADriver.Display(environment: ["VATB_FAIL_CREATE_CONTEXT": "1"])
        let dpy = display.display
        let (status, config) = Self.createConfig(dpy, VAProfileH264Main)
        try Self.check(status, "vaCreateConfig")
        var context = VAContextID(0)
        #expect(
            vaCreateContext(dpy, config, 320, 240, VA_PROGRESSIVE, nil, 0, &context) == VA_STATUS_ERROR_OPERATION_FAILED
        )
        try Self.check(vaDestroyConfig(dpy, config), "vaDestroyConfig")
    }

    @Test func idsOfTheWrongTypeAreRefused() throws {
        let display = try TestVADriver.Display()
        let dpy = display.display
        let (status, config) = Self.createConfig(dpy, VAProfileH264Main)
        try Self.check(status, "vaCreateConfig")
        var (surfaceStatus, surfaces) = Self.createSurfaces(
            dpy, rtFormat: VA_RT_FORMAT_YUV420, width: 64, height: 64, count: 1)
        try Self.check(surfaceStatus, "vaCreateSurfaces")
        var configAsSurface = [VASurfaceID(config)]
        #expect(vaDestroySurfaces(dpy, &configAsSurface, 1) == VA_STATUS_ERROR_INVALID_SURFACE)
        #expect(vaDestroyConfig(dpy, surfaces[0]) == VA_STATUS_ERROR_INVALID_CONFIG)
        #expect(vaDestroyContext(dpy, surfaces[0]) == VA_STATUS_ERROR_INVALID_CONTEXT)
        #expect(vaDestroyBuffer(dpy, surfaces[0]) == VA_STATUS_ERROR_INVALID_BUFFER)
        #expect(vaDestroyImage(dpy, surfaces[0]) == VA_STATUS_ERROR_INVALID_IMAGE)
        var context = VAContextID(0)
        #expect(vaCreateContext(dpy, surfaces[0], 64, 64, 0, nil, 0, &context) == VA_STATUS_ERROR_INVALID_CONFIG)
        // A P010 pixel format on an 8-bit surface is refused.
        let mismatch = Self.createSurfaces(
            dpy, rtFormat: VA_RT_FORMAT_YUV420, width: 64, height: 64, count: 1, fourCC: Self.fourCC("P010"))
        #expect(mismatch.0 != VA_STATUS_SUCCESS)
        try Self.check(vaDestroySurfaces(dpy, &surfaces, 1), "vaDestroySurfaces")
        try Self.check(vaDestroyConfig(dpy, config), "vaDestroyConfig")
    }

    /// A whole "decode" in process: stamp, derive, get, export, fault on the 2nd end picture,
    /// and every count back where it was after the destroys.
    @Test func stampsDerivesGetsAndExports() throws {
        let before = try TestVADriver.liveObjects()
        let display = try TestVADriver.Display(environment: ["VATB_FAIL_END_PICTURE": "2"])
        let dpy = display.display
        let width: UInt32 = 100
        let height: UInt32 = 50
        let (configStatus, config) = Self.createConfig(dpy, VAProfileH264High)
        try Self.check(configStatus, "vaCreateConfig")
        var (surfaceStatus, surfaces) = Self.createSurfaces(
            dpy, rtFormat: VA_RT_FORMAT_YUV420, width: width, height: height, count: 2, fourCC: Self.fourCC("NV12"))
        try Self.check(surfaceStatus, "vaCreateSurfaces")
        var context = VAContextID(0)
        try Self.check(
            vaCreateContext(dpy, config, Int32(width), Int32(height), VA_PROGRESSIVE, &surfaces, 2, &context),
            "vaCreateContext")
        let during = try TestVADriver.liveObjects()
        #expect(during.configs == before.configs + 1 && during.surfaces == before.surfaces + 2)
        #expect(during.contexts == before.contexts + 1 && during.drivers == before.drivers + 1)

        // Two parameter/data pairs, the first with two slices; trailing zeros are not hashed.
        let groups: [[[UInt8]]] = [[[0x65, 0x88, 0x84, 0x00, 0x00], [0x65, 0x01, 0x02]], [[0x41, 0x9A, 0x00]]]
        let (status, hash, slices) = try Self.decodeFakePicture(
            dpy, context: context, surface: surfaces[0], top: 12, bottom: 13, groups: groups)
        try Self.check(status, "vaEndPicture")
        try Self.check(vaSyncSurface(dpy, surfaces[0]), "vaSyncSurface")
        var surfaceStatus2 = VASurfaceStatus(0)
        try Self.check(vaQuerySurfaceStatus(dpy, surfaces[0], &surfaceStatus2), "vaQuerySurfaceStatus")
        #expect(surfaceStatus2 == VASurfaceReady)

        // The 2nd vaEndPicture of this driver instance fails (VATB_FAIL_END_PICTURE=2) and stamps FALT.
        let (failed, _, _) = try Self.decodeFakePicture(
            dpy, context: context, surface: surfaces[1], top: 20, bottom: 20, groups: [[[0x41, 0x01]]])
        #expect(failed == VA_STATUS_ERROR_DECODING_ERROR)

        // vaDeriveImage: the image buffer is the surface's memory.
        var derived = VAImage()
        try Self.check(vaDeriveImage(dpy, surfaces[0], &derived), "vaDeriveImage")
        #expect(derived.format.fourcc == Self.fourCC("NV12") && derived.num_planes == 2)
        #expect(derived.width == UInt16(width) && derived.height == UInt16(height))
        #expect(derived.pitches.0 == 128 && derived.pitches.1 == 128)  // 100 aligned to 64
        #expect(derived.offsets.0 == 0 && derived.offsets.1 == 128 * 64)  // height aligned to 16
        var mapped: UnsafeMutableRawPointer?
        try Self.check(vaMapBuffer(dpy, derived.buf, &mapped), "vaMapBuffer")
        let bytes = UnsafeRawBufferPointer(start: mapped, count: Int(derived.data_size))
        let stamp = try #require(DriverStamp(bytes))
        #expect(
            stamp
                == DriverStamp(
                    magic: "VATB", poc: 12, decodeIndex: 1, hash: hash, sliceCount: slices,
                    profile: VAProfileH264High.rawValue))
        func pattern(_ x: Int, _ y: Int) -> UInt8 { UInt8(truncatingIfNeeded: hash >> (8 * UInt64((x + y) & 7))) }
        #expect(bytes[128 * 3 + 40] == pattern(40, 3))
        #expect(bytes[Int(derived.offsets.1) + 128 * 2 + 7] == 0x80)
        try Self.check(vaUnmapBuffer(dpy, derived.buf), "vaUnmapBuffer")

        var failedImage = VAImage()
        try Self.check(vaDeriveImage(dpy, surfaces[1], &failedImage), "vaDeriveImage")
        try Self.check(vaMapBuffer(dpy, failedImage.buf, &mapped), "vaMapBuffer")
        #expect(DriverStamp(UnsafeRawBufferPointer(start: mapped, count: 32))?.magic == "FALT")
        try Self.check(vaUnmapBuffer(dpy, failedImage.buf), "vaUnmapBuffer")
        try Self.check(vaDestroyImage(dpy, failedImage.image_id), "vaDestroyImage")
        // A surface with a derived image is busy.
        #expect(vaDestroySurfaces(dpy, &surfaces, 1) == VA_STATUS_ERROR_SURFACE_BUSY)

        // vaGetImage copies a rectangle into an image of its own.
        var format = VAImageFormat()
        format.fourcc = Self.fourCC("NV12")
        format.byte_order = UInt32(VA_LSB_FIRST)
        format.bits_per_pixel = 12
        var image = VAImage()
        try Self.check(vaCreateImage(dpy, &format, 32, 16, &image), "vaCreateImage")
        try Self.check(vaGetImage(dpy, surfaces[0], 4, 2, 32, 16, image.image_id), "vaGetImage")
        try Self.check(vaMapBuffer(dpy, image.buf, &mapped), "vaMapBuffer")
        let copy = UnsafeRawBufferPointer(start: mapped, count: Int(image.data_size))
        #expect(copy[Int(image.pitches.0) * 5 + 9] == pattern(4 + 9, 2 + 5))
        #expect(copy[Int(image.offsets.1)] == 0x80)
        try Self.check(vaUnmapBuffer(dpy, image.buf), "vaUnmapBuffer")
        #expect(vaGetImage(dpy, surfaces[0], 90, 0, 32, 16, image.image_id) == VA_STATUS_ERROR_INVALID_PARAMETER)
        try Self.check(vaDestroyImage(dpy, image.image_id), "vaDestroyImage")

        // vaExportSurfaceHandle: a memfd holding a copy of the surface, composed and separate layers.
        #expect(MemoryLayout<VADRMPRIMESurfaceDescriptor>.size == PRIMEDescriptor.expectedSize)
        for flags in [VA_EXPORT_SURFACE_COMPOSED_LAYERS, VA_EXPORT_SURFACE_SEPARATE_LAYERS] {
            var raw = VADRMPRIMESurfaceDescriptor()
            try Self.check(
                vaExportSurfaceHandle(
                    dpy, surfaces[0], UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2),
                    UInt32(VA_EXPORT_SURFACE_READ_ONLY | flags), &raw),
                "vaExportSurfaceHandle")
            let descriptor = PRIMEDescriptor(raw)
            try #require(descriptor.objects.count == 1)
            let object = descriptor.objects[0]
            defer { close(object.fd) }
            #expect(descriptor.fourcc == Self.fourCC("NV12"))
            #expect(descriptor.width == width && descriptor.height == height)
            #expect(object.size == derived.data_size && object.modifier == 0)
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(object.fd)")
            #expect(link.hasPrefix("/memfd:"), "\(link)")
            var info = stat()
            #expect(fstat(object.fd, &info) == 0 && Int(info.st_size) == Int(object.size))
            var head = [UInt8](repeating: 0, count: 32)
            #expect(pread(object.fd, &head, 32, 0) == 32)
            #expect(DriverStamp(head) == stamp)
            if flags == VA_EXPORT_SURFACE_COMPOSED_LAYERS {
                try #require(descriptor.layers.count == 1)
                let layer = descriptor.layers[0]
                #expect(layer.drmFormat == Self.fourCC("NV12") && layer.numPlanes == 2)
                #expect(layer.objectIndex.prefix(2) == [0, 0])
                #expect(layer.offset.prefix(2) == [0, derived.offsets.1])
                #expect(layer.pitch.prefix(2) == [128, 128])
            } else {
                try #require(descriptor.layers.count == 2)
                #expect(descriptor.layers.map(\.drmFormat) == [Self.fourCC("R8  "), Self.fourCC("GR88")])
                #expect(descriptor.layers.map(\.numPlanes) == [1, 1])
                #expect(descriptor.layers.map { $0.offset[0] } == [0, derived.offsets.1])
                #expect(descriptor.layers.map { $0.pitch[0] } == [128, 128])
            }
        }
        var descriptor = VADRMPRIMESurfaceDescriptor()
        #expect(
            vaExportSurfaceHandle(dpy, surfaces[0], UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_VA), 0, &descriptor)
                == VA_STATUS_ERROR_UNSUPPORTED_MEMORY_TYPE)

        try Self.check(vaDestroyImage(dpy, derived.image_id), "vaDestroyImage")
        try Self.check(vaDestroyContext(dpy, context), "vaDestroyContext")
        try Self.check(vaDestroySurfaces(dpy, &surfaces, 2), "vaDestroySurfaces")
        try Self.check(vaDestroyConfig(dpy, config), "vaDestroyConfig")
        display.terminate()

        let after = try TestVADriver.liveObjects()
        var expected = before
        expected.endPictures += 1
        expected.failedEndPictures += 1
        expected.syncs += 1
        #expect(after == expected)
    }

    /// H.264 field pictures: the second field of a surface continues the first field's hash, adds
    /// its slices, and the POC is the smaller of the two.
    @Test func secondFieldContinuesTheFirst() throws {
        let display = try TestVADriver.Display(environment: ["VATB_FAIL_SYNC": "2"])
        let dpy = display.display
        let (configStatus, config) = Self.createConfig(dpy, VAProfileH264High)
        try Self.check(configStatus, "vaCreateConfig")
        var (surfaceStatus, surfaces) = Self.createSurfaces(
            dpy, rtFormat: VA_RT_FORMAT_YUV420, width: 64, height: 64, count: 1)
        try Self.check(surfaceStatus, "vaCreateSurfaces")
        var context = VAContextID(0)
        try Self.check(vaCreateContext(dpy, config, 64, 64, 0, &surfaces, 1, &context), "vaCreateContext")

        let top: [UInt8] = [0x25, 0xB8, 0x00]
        let bottom: [UInt8] = [0x01, 0x9E, 0x42]
        let (first, _, _) = try Self.decodeFakePicture(
            dpy, context: context, surface: surfaces[0], top: 9, bottom: 0, groups: [[top]],
            flags: VA_PICTURE_H264_TOP_FIELD)
        try Self.check(first, "vaEndPicture (top field)")
        var firstField = FNV1a64()
        firstField.combineSlice(top[...])
        let (second, hash, _) = try Self.decodeFakePicture(
            dpy, context: context, surface: surfaces[0], top: 0, bottom: 8, groups: [[bottom]],
            flags: VA_PICTURE_H264_BOTTOM_FIELD, continuing: firstField)
        try Self.check(second, "vaEndPicture (bottom field)")

        // VATB_FAIL_SYNC=2: the first sync succeeds, the second fails and marks the surface.
        try Self.check(vaSyncSurface(dpy, surfaces[0]), "vaSyncSurface")
        var image = VAImage()
        try Self.check(vaDeriveImage(dpy, surfaces[0], &image), "vaDeriveImage")
        var mapped: UnsafeMutableRawPointer?
        try Self.check(vaMapBuffer(dpy, image.buf, &mapped), "vaMapBuffer")
        let stamp = try #require(DriverStamp(UnsafeRawBufferPointer(start: mapped, count: DriverStamp.size)))
        #expect(
            stamp
                == DriverStamp(
                    magic: "VATB", poc: 8, decodeIndex: 2, hash: hash, sliceCount: 2,
                    profile: VAProfileH264High.rawValue))
        #expect(vaSyncSurface(dpy, surfaces[0]) == VA_STATUS_ERROR_HW_BUSY)
        #expect(DriverStamp(UnsafeRawBufferPointer(start: mapped, count: DriverStamp.size))?.magic == "FALT")
        try Self.check(vaUnmapBuffer(dpy, image.buf), "vaUnmapBuffer")
        try Self.check(vaDestroyImage(dpy, image.image_id), "vaDestroyImage")
        try Self.check(vaDestroyContext(dpy, context), "vaDestroyContext")
        try Self.check(vaDestroySurfaces(dpy, &surfaces, 1), "vaDestroySurfaces")
        try Self.check(vaDestroyConfig(dpy, config), "vaDestroyConfig")
    }

    @Test func tenBitSurfacesAreP010() throws {
        let display = try TestVADriver.Display()
        let dpy = display.display
        var (status, surfaces) = Self.createSurfaces(
            dpy, rtFormat: VA_RT_FORMAT_YUV420_10, width: 64, height: 20, count: 1, fourCC: Self.fourCC("P010"))
        try Self.check(status, "vaCreateSurfaces")
        var image = VAImage()
        try Self.check(vaDeriveImage(dpy, surfaces[0], &image), "vaDeriveImage")
        #expect(image.format.fourcc == Self.fourCC("P010"))
        #expect(image.pitches.0 == 128 && image.offsets.1 == 128 * 32)
        var raw = VADRMPRIMESurfaceDescriptor()
        try Self.check(
            vaExportSurfaceHandle(
                dpy, surfaces[0], UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2),
                UInt32(VA_EXPORT_SURFACE_SEPARATE_LAYERS), &raw),
            "vaExportSurfaceHandle")
        let descriptor = PRIMEDescriptor(raw)
        for object in descriptor.objects { close(object.fd) }
        #expect(descriptor.fourcc == Self.fourCC("P010"))
        #expect(descriptor.layers.map(\.drmFormat) == [Self.fourCC("R16 "), Self.fourCC("GR32")])
        #expect(descriptor.layers.map { $0.pitch[0] } == [128, 128])
        try Self.check(vaDestroyImage(dpy, image.image_id), "vaDestroyImage")
        try Self.check(vaDestroySurfaces(dpy, &surfaces, 1), "vaDestroySurfaces")
    }

    /// Objects left for vaTerminate to free keep their live counts raised: the check a test of a
    /// VA client uses to find leaks.
    @Test func leakedObjectsStayCountedAfterTerminate() throws {
        let before = try TestVADriver.liveObjects()
        let display = try TestVADriver.Display()
        let (status, _) = Self.createConfig(display.display, VAProfileHEVCMain)
        try Self.check(status, "vaCreateConfig")
        let (surfaceStatus, _) = Self.createSurfaces(
            display.display, rtFormat: VA_RT_FORMAT_YUV420, width: 64, height: 64, count: 2)
        try Self.check(surfaceStatus, "vaCreateSurfaces")
        display.terminate()
        let after = try TestVADriver.liveObjects()
        #expect(after.drivers == before.drivers)
        #expect(after.configs == before.configs + 1)
        #expect(after.surfaces == before.surfaces + 2)
        // Other tests compare against their own snapshot, so the raised counts do not disturb them.
    }

    // MARK: - Through the ffmpeg CLI

    /// A fixture the VA-API hwaccel decodes, with the VA profile FFmpeg picks for it.
    struct HardwareFixture: Sendable, CustomTestStringConvertible {
        let name: String
        let profile: Int32
        let tenBit: Bool

        var testDescription: String { name }
        var url: URL { TestData.fixtures.appendingPathComponent(name) }
        var codec: VideoCodecType { name.hasPrefix("hevc") ? .hevc : .h264 }
    }

    static let hardwareFixtures: [HardwareFixture] = [
        ("h264-baseline-cavlc.264", VAProfileH264ConstrainedBaseline, false),
        ("h264-main-cabac.264", VAProfileH264Main, false),
        ("h264-high-bpyramid.264", VAProfileH264High, false),
        ("h264-mbaff.264", VAProfileH264High, false),
        ("h264-cropped-642x362.264", VAProfileH264High, false),
        ("h264-slices.264", VAProfileH264High, false),
        ("h264-3byte-startcodes.264", VAProfileH264High, false),
        ("h264-resolution-change.264", VAProfileH264Main, false),
        ("h264-size-up.264", VAProfileH264Main, false),
        ("hevc-size-up.265", VAProfileHEVCMain, false),
        ("hevc-main.265", VAProfileHEVCMain, false),
        ("hevc-main10.265", VAProfileHEVCMain10, true),
        ("hevc-hdr10.265", VAProfileHEVCMain10, true),
        ("hevc-hdr10plus.265", VAProfileHEVCMain10, true),
        ("hevc-dolby-vision.265", VAProfileHEVCMain10, true),
        ("h264-sei-hdr.264", VAProfileH264High, false),
        ("hevc-alternative-transfer.265", VAProfileHEVCMain10, true),
        ("hevc-hlg.265", VAProfileHEVCMain10, true),
        ("hevc-slices.265", VAProfileHEVCMain, false),
        ("h264-open-gop.264", VAProfileH264High, false),
        ("hevc-open-gop.265", VAProfileHEVCMain, false),
    ].map { HardwareFixture(name: $0.0, profile: $0.1.rawValue, tenBit: $0.2) }

    /// Annex B fixtures the test leaves out, and why.
    static let skippedFixtures: [String: String] = [
        "h264-high10.264": "H.264 High 10: VA-API has no profile for it, FFmpeg's hwaccel refuses it",
        "h264-high422.264": "H.264 4:2:2: VA-API has no profile for it, FFmpeg's hwaccel refuses it",
        "h264-truncated.264":
            "corrupt: which slices libavcodec forwards depends on where its parsing fails, not on the driver",
        "h264-bitflip.264":
            "corrupt: which slices libavcodec forwards depends on where its parsing fails, not on the driver",
        "hevc-end-of-sequence.265":
            "5 of its 75 pictures are never output (RASL after an end of sequence, and 2 dropped at it), which "
            + "these one-picture-per-access-unit checks cannot express; the real-pixel tests run it on the driver",
    ]

    @Test func everyAnnexBFixtureIsCheckedOrSkippedWithAReason() {
        let listed = Set(Self.hardwareFixtures.map(\.name)).union(Self.skippedFixtures.keys)
        #expect(Set(StreamFile.fixtures.map(\.name)) == listed)
    }

    /// The result of running ffmpeg.
    struct FFmpegRun {
        var status: Int32
        var output: [UInt8]
        var log: String
    }

    static func ffmpeg(
        _ fixture: URL, tenBit: Bool = false, environment: [String: String] = [:], threads: Int? = nil
    ) throws -> FFmpegRun {
        let arguments =
            [
                "-hide_banner", "-nostdin", "-loglevel", "error", "-init_hw_device", "vaapi=va:/dev/null", "-hwaccel",
                "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi",
            ] + (threads.map { ["-threads", "\($0)"] } ?? []) + [
                "-i", fixture.path, "-autoscale", "0", "-vf", "hwdownload,format=\(tenBit ? "p010le" : "nv12")", "-f",
                "rawvideo", "-",
            ]
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"), arguments,
            environment: TestVADriver.subprocessEnvironment(environment))
        return FFmpegRun(status: result.status, output: [UInt8](result.standardOutput), log: result.standardError)
    }

    /// The frame sizes in bytes of the software decode, from the fixture's `.framemd5` (the same
    /// byte counts as NV12/P010 of the same size: 4:2:0, 8 or 16 bits per sample).
    static func frameSizes(_ fixture: URL) throws -> [Int] {
        let text = try String(contentsOf: fixture.appendingPathExtension("framemd5"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            let columns = $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return columns.count >= 6 ? Int(columns[4]) : nil
        }
    }

    /// What the driver should see of an access unit.
    struct AccessUnitIdentity {
        var hash: UInt64
        var slices: UInt32
        var isSync: Bool
    }

    /// Per access unit in decode order: the FNV-1a of its VCL NAL units (trailing zeros stripped).
    static func accessUnits(_ fixture: HardwareFixture) throws -> [AccessUnitIdentity] {
        let samples = ElementaryStreamParser.samples(in: try TestData.bytes(fixture.url), codec: fixture.codec)
        return samples.map { sample in
            var hash = FNV1a64()
            var slices: UInt32 = 0
            for unit in sample.nalUnits where unit.isVCL {
                hash.combineSlice(unit.bytes)
                slices += 1
            }
            return AccessUnitIdentity(hash: hash.value, slices: slices, isSync: sample.isSync)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")), arguments: hardwareFixtures)
    func ffmpegHwaccelDecodesEveryPictureThroughTheDriver(fixture: HardwareFixture) throws {
        let run = try Self.ffmpeg(fixture.url, tenBit: fixture.tenBit)
        try #require(run.status == 0, "ffmpeg failed: \(run.log)")

        // Frames: as many as the software decode, with the same sizes.
        let sizes = try Self.frameSizes(fixture.url)
        #expect(run.output.count == sizes.reduce(0, +))
        var stamps: [DriverStamp] = []
        var offset = 0
        for size in sizes where offset + size <= run.output.count {
            stamps.append(try #require(DriverStamp(run.output[offset..<offset + size])))
            offset += size
        }
        try #require(stamps.count == sizes.count)
        #expect(stamps.allSatisfy { $0.magic == "VATB" && $0.version == 1 && $0.profile == fixture.profile })

        // Hashes: the multiset of stamped hashes is the multiset of the stream's access units, period
        // by period (an IDR/IRAP period is a contiguous run of output frames), and POCs increase
        // within each period.
        let units = try Self.accessUnits(fixture)
        #expect(units.count == stamps.count)
        var periods: [[AccessUnitIdentity]] = []
        for unit in units {
            if unit.isSync || periods.isEmpty { periods.append([]) }
            periods[periods.count - 1].append(unit)
        }
        var start = 0
        for (index, period) in periods.enumerated() {
            let output = stamps[min(start, stamps.count)..<min(start + period.count, stamps.count)]
            start += period.count
            #expect(output.map(\.hash).sorted() == period.map(\.hash).sorted(), "period \(index)")
            #expect(zip(output, output.dropFirst()).allSatisfy { $0.poc < $1.poc }, "POCs in period \(index)")
        }
        let slicesByHash = Dictionary(units.map { ($0.hash, $0.slices) }, uniquingKeysWith: { first, _ in first })
        #expect(stamps.allSatisfy { slicesByHash[$0.hash] == $0.sliceCount })

        // Decode index: the access unit's position in decode order (one VA context for the whole
        // stream; FFmpeg makes a new one at the resolution change, which restarts the count).
        if !["h264-resolution-change.264", "h264-size-up.264", "hevc-size-up.265"].contains(fixture.name) {
            let positions = Dictionary(
                units.enumerated().map { ($1.hash, UInt32($0 + 1)) }, uniquingKeysWith: { first, _ in first })
            #expect(stamps.allSatisfy { positions[$0.hash] == $0.decodeIndex })
        }
    }

    static let faultFixture = TestData.fixtures.appendingPathComponent("h264-main-cabac.264")

    /// Every picture through ffmpeg under each personality, on a few fixtures (every fixture runs
    /// on the driver's own behaviour above): every frame comes out, stamped with an access unit of
    /// the stream, in the software decode's sizes.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")),
        arguments: ["h264-high-bpyramid.264", "hevc-main10.265", "h264-mbaff.264"], ["ihd", "i965", "mesa", "nvidia"])
    func ffmpegHwaccelDecodesEveryPictureUnderEachPersonality(name: String, personality: String) throws {
        let fixture = try #require(Self.hardwareFixtures.first { $0.name == name })
        let run = try Self.ffmpeg(fixture.url, tenBit: fixture.tenBit, environment: ["VATB_PERSONALITY": personality])
        try #require(run.status == 0, "ffmpeg failed: \(run.log)")
        let sizes = try Self.frameSizes(fixture.url)
        #expect(run.output.count == sizes.reduce(0, +))
        var stamps: [DriverStamp] = []
        var offset = 0
        for size in sizes where offset + size <= run.output.count {
            stamps.append(try #require(DriverStamp(run.output[offset..<offset + size])))
            offset += size
        }
        #expect(stamps.allSatisfy { $0.magic == "VATB" && $0.profile == fixture.profile })
        #expect(stamps.map(\.hash).sorted() == (try Self.accessUnits(fixture)).map(\.hash).sorted())
    }

    /// When the hwaccel cannot be set up, libavcodec falls back to software frames, which the
    /// hwdownload filter cannot take: ffmpeg fails without output.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")),
        arguments: [
            ("VATB_FAIL_CREATE_CONTEXT", "1", "Failed to create decode context"),
            ("VATB_FAIL_CREATE_CONFIG", "1", "Failed to create decode configuration"),
            ("VATB_MAX_SIZE", "160x120", "Hardware does not support image size 320x240"),
            ("VATB_UNSUPPORTED_PROFILES", "H264Main,H264High", "Failed setup for format vaapi"),
        ], TestVADriver.personalities)
    func ffmpegFailsWhenTheHwaccelCannotBeSetUp(fault: (String, String, String), personality: String?) throws {
        let (variable, value, message) = fault
        var environment = [variable: value]
        environment["VATB_PERSONALITY"] = personality
        let run = try Self.ffmpeg(Self.faultFixture, environment: environment)
        #expect(run.status != 0)
        #expect(run.output.isEmpty)
        #expect(run.log.contains(message), "\(run.log)")
        #expect(run.log.contains("Failed setup for format vaapi: hwaccel initialisation returned error"))
    }

    /// vaEndPicture failing for the 3rd and 4th pictures in decode order (a reference B picture and a
    /// non-reference b picture of x264's B-pyramid) does not stop ffmpeg, but what comes out is not "those two
    /// frames missing". Observed with FFmpeg 5.1, deterministic with `-threads 1`:
    /// - the failed reference picture stays in libavcodec's DPB and is output later, stamped `FALT`;
    /// - the failed non-reference picture is dropped;
    /// - the IDR picture (decoded fine, 1st in decode order) is lost as well: libavcodec returns the
    ///   error for the packet whose picture failed and drops the frame that was due for output then.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")),
        arguments: TestVADriver.personalities)
    func ffmpegAfterAFailedEndPicture(personality: String?) throws {
        var environment = ["VATB_FAIL_END_PICTURE": "3:2"]
        environment["VATB_PERSONALITY"] = personality
        let run = try Self.ffmpeg(Self.faultFixture, environment: environment, threads: 1)
        #expect(run.status == 0, "\(run.log)")
        #expect(run.log.components(separatedBy: "Failed to end picture decode issue: 23").count - 1 == 2)
        let frameSize = 320 * 240 * 3 / 2
        #expect(run.output.count == 28 * frameSize)
        let stamps = stride(from: 0, to: run.output.count, by: frameSize).compactMap {
            DriverStamp(run.output[$0..<$0 + DriverStamp.size])
        }
        let fixture = try #require(Self.hardwareFixtures.first { $0.name == "h264-main-cabac.264" })
        let units = try Self.accessUnits(fixture).map(\.hash)
        let failed = stamps.filter { $0.magic == "FALT" }
        #expect(failed.map(\.hash) == [units[2]])
        #expect(failed.first?.decodeIndex == 0)
        let decoded = stamps.filter { $0.magic == "VATB" }.map(\.hash)
        let expected = units.enumerated().filter { ![0, 2, 3].contains($0.offset) }.map(\.element)
        #expect(decoded.sorted() == expected.sorted())
    }

    /// A failed vaSyncSurface fails hwdownload, and ffmpeg stops with an error.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")),
        arguments: TestVADriver.personalities)
    func ffmpegStopsWhenSyncFails(personality: String?) throws {
        var environment = ["VATB_FAIL_SYNC": "5"]
        environment["VATB_PERSONALITY"] = personality
        let run = try Self.ffmpeg(Self.faultFixture, environment: environment)
        #expect(run.status != 0)
        #expect(run.log.contains("Failed to download frame"), "\(run.log)")
        #expect(run.output.count < 30 * 320 * 240 * 3 / 2)
    }
}

extension DriverStamp {
    /// A stamp with the given fields, version 1.
    init(magic: String, poc: Int32, decodeIndex: UInt32, hash: UInt64, sliceCount: UInt32, profile: Int32) {
        var bytes = [UInt8](magic.utf8) + [1, 0, 0, 0]
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        }
        append(UInt32(bitPattern: poc))
        append(decodeIndex)
        append(hash)
        append(sliceCount)
        append(UInt32(bitPattern: profile))
        self.init(bytes)!
    }
}
