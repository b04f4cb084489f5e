/// The `sei_message()` framing shared by H.264 (clause 7.3.2.3.1) and HEVC (clause 7.3.5):
/// each message is a payload type and size, coded as runs of `0xFF` bytes plus a last byte.
public enum SEIMessages {
    /// `recovery_point` (payloadType 6 in both codecs): decoding may start at this picture and
    /// becomes exact after `recovery_frame_cnt` frames.
    public static let recoveryPointPayloadType = 6

    /// The payload types of the messages in an SEI NAL unit's RBSP, in order.
    ///
    /// Stops quietly at the first message that does not fit: a damaged SEI loses its tail, it
    /// does not fail the stream.
    public static func payloadTypes(inRBSP rbsp: [UInt8]) -> [Int] {
        messages(inRBSP: rbsp).map(\.type)
    }

    /// The `recovery_frame_cnt` of the recovery point message in an H.264 SEI NAL unit's RBSP
    /// (clauses D.1.8 and D.2.8, the `ue(v)` that starts the payload): 0 when decoding from the
    /// picture is exact from that picture on in output order, more when it becomes exact only that
    /// many frames later. Nil when the unit has no recovery point message, or its value does not
    /// parse.
    public static func recoveryFrameCount(inRBSP rbsp: [UInt8]) -> Int? {
        guard let message = messages(inRBSP: rbsp).first(where: { $0.type == recoveryPointPayloadType }) else {
            return nil
        }
        var reader = BitReader(Array(message.payload), context: "recovery point SEI")
        // Below MaxFrameNum, which is at most 2^16.
        return try? reader.unsignedExpGolomb("recovery_frame_cnt", maximum: 1 << 16)
    }

    /// `user_data_registered_itu_t_t35` (payloadType 4 in both codecs; H.264 D.1.6, HEVC D.2.6).
    public static let registeredUserDataPayloadType = 4

    /// The HDR10+ message of an SEI NAL unit's RBSP: the `user_data_registered_itu_t_t35` payload
    /// of SMPTE ST 2094-40 dynamic metadata, from `itu_t_t35_country_code` (0xB5) on, as Apple's
    /// `kCMSampleAttachmentKey_HDR10PlusPerFrameData` carries it; nil when the unit has none.
    public static func hdr10PlusPayload(inRBSP rbsp: [UInt8]) -> [UInt8]? {
        messages(inRBSP: rbsp).first {
            $0.type == registeredUserDataPayloadType && HDR10Plus.isHDR10Plus($0.payload)
        }.map { Array($0.payload) }
    }

    /// `mastering_display_colour_volume` (payloadType 137 in both codecs; H.264 D.1.29, HEVC D.2.28).
    public static let masteringDisplayColourVolumePayloadType = 137
    /// `content_light_level_info` (payloadType 144; H.264 D.1.31, HEVC D.2.35).
    public static let contentLightLevelInfoPayloadType = 144
    /// `ambient_viewing_environment` (payloadType 148; H.264 D.1.33, HEVC D.2.39).
    public static let ambientViewingEnvironmentPayloadType = 148
    /// `alternative_transfer_characteristics` (payloadType 147; H.264 D.1.32, HEVC D.2.38): one
    /// byte, `preferred_transfer_characteristics`, an H.273 transfer code point.
    public static let alternativeTransferCharacteristicsPayloadType = 147

    /// The static HDR metadata messages of an SEI NAL unit's RBSP: the mastering display colour
    /// volume and content light level (when `includingHDR10` — for a decoder that does not read
    /// them itself), the ambient viewing environment and the alternative transfer
    /// characteristics; nil when the unit has none of them. Their payloads are Apple's byte
    /// layouts as they are.
    static func staticHDRMetadata(inRBSP rbsp: [UInt8], includingHDR10: Bool) -> StaticHDRMetadata? {
        var found = StaticHDRMetadata()
        for message in messages(inRBSP: rbsp) {
            switch message.type {
            case masteringDisplayColourVolumePayloadType where includingHDR10:
                found.masteringDisplay =
                    MasteringDisplayColorVolume(appleBytes: Array(message.payload))
                    ?? found.masteringDisplay
            case contentLightLevelInfoPayloadType where includingHDR10:
                found.contentLightLevel =
                    ContentLightLevel(appleBytes: Array(message.payload)) ?? found.contentLightLevel
            case ambientViewingEnvironmentPayloadType:
                found.ambientViewingEnvironment =
                    AmbientViewingEnvironment(appleBytes: message.payload) ?? found.ambientViewingEnvironment
            case alternativeTransferCharacteristicsPayloadType:
                found.alternativeTransferCharacteristics =
                    message.payload.first.flatMap(preferredTransfer) ?? found.alternativeTransferCharacteristics
            default: break
            }
        }
        return found.isEmpty ? nil : found
    }

    /// A `preferred_transfer_characteristics` value as the transfer it names; nil for 2
    /// (unspecified) and the values H.273 does not define, which libavcodec ignores too
    /// (`hevc_refs.c`, `h264_slice.c`: only a value `av_color_transfer_name` knows, other than
    /// unspecified, replaces the picture's transfer).
    private static func preferredTransfer(_ code: UInt8) -> TransferFunction? {
        code == TransferFunction.unspecified.rawValue || code > TransferFunction.hlg.rawValue
            ? nil : TransferFunction(rawValue: code)
    }

    /// The messages in an SEI NAL unit's RBSP, in order: each one's payload type and payload.
    ///
    /// Stops quietly at the first message that does not fit.
    private static func messages(inRBSP rbsp: [UInt8]) -> [(type: Int, payload: ArraySlice<UInt8>)] {
        var messages: [(type: Int, payload: ArraySlice<UInt8>)] = []
        var index = 0
        // A message needs at least a type byte and a size byte; the last byte is rbsp_trailing_bits.
        while index + 2 <= rbsp.count, !(index == rbsp.count - 1 && rbsp[index] == 0x80) {
            guard let type = readValue(rbsp, &index), let size = readValue(rbsp, &index),
                size <= rbsp.count - index
            else { break }
            messages.append((type, rbsp[index..<(index + size)]))
            index += size
            if index >= rbsp.count - 1 { break }
        }
        return messages
    }

    /// Reads a value coded as `0xFF` bytes, each adding 255, then one byte below `0xFF`.
    private static func readValue(_ bytes: [UInt8], _ index: inout Int) -> Int? {
        var value = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            value += Int(byte)
            if byte != 0xFF { return value }
            guard value < 1 << 24 else { return nil }
        }
        return nil
    }
}
