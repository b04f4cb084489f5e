import Foundation
import Testing
import VideoToolbox

/// The Core Foundation vocabulary VideoToolbox code uses, as it calls it.
@Suite struct CoreFoundationTests {
    @Test func byteSwapsAreCoreFoundations() {
        #expect(CFSwapInt16(0x0102) == 0x0201 && CFSwapInt32(0x0102_0304) == 0x0403_0201)
        #expect(CFSwapInt64(0x0102_0304_0506_0708) == 0x0807_0605_0403_0201)
        // A little-endian host: host to big swaps, host to little does not.
        #expect(CFSwapInt16HostToBig(0x0102) == 0x0201 && CFSwapInt16BigToHost(0x0201) == 0x0102)
        #expect(CFSwapInt32HostToBig(0x0102_0304) == 0x0403_0201 && CFSwapInt32BigToHost(0x0403_0201) == 0x0102_0304)
        #expect(CFSwapInt64HostToBig(1) == 1 << 56 && CFSwapInt64BigToHost(1 << 56) == 1)
        #expect(CFSwapInt16HostToLittle(0x0102) == 0x0102 && CFSwapInt16LittleToHost(0x0102) == 0x0102)
        #expect(CFSwapInt32HostToLittle(0x0102_0304) == 0x0102_0304 && CFSwapInt32LittleToHost(7) == 7)
    }

    /// The dictionary idiom of seed 000 and of Apple's sample code, by unretained pointers; a value
    /// read back is the same object every time, string or not.
    @Test func dictionariesAndArraysByPointer() throws {
        let dictionary = NSMutableDictionary()
        let key: CFString = "com.example.key"
        let other: CFString = "com.example.other"
        CFDictionarySetValue(
            dictionary, Unmanaged.passUnretained(key).toOpaque(), Unmanaged.passUnretained(kCFBooleanTrue).toOpaque())
        CFDictionarySetValue(
            dictionary, Unmanaged.passUnretained(other).toOpaque(),
            Unmanaged.passUnretained(kCVImageBufferYCbCrMatrix_ITU_R_709_2).toOpaque())
        #expect(CFDictionaryContainsKey(dictionary, Unmanaged.passUnretained(key).toOpaque()))
        let flag = try #require(CFDictionaryGetValue(dictionary, Unmanaged.passUnretained(key).toOpaque()))
        #expect(Unmanaged<NSNumber>.fromOpaque(flag).takeUnretainedValue() == kCFBooleanTrue)
        let first = try #require(CFDictionaryGetValue(dictionary, Unmanaged.passUnretained(other).toOpaque()))
        let second = try #require(CFDictionaryGetValue(dictionary, Unmanaged.passUnretained(other).toOpaque()))
        #expect(first == second, "the same object, alive after the call")
        #expect(Unmanaged<NSString>.fromOpaque(first).takeUnretainedValue() == "ITU_R_709_2")
        let missing: CFString = "com.example.missing"
        #expect(!CFDictionaryContainsKey(dictionary, Unmanaged.passUnretained(missing).toOpaque()))

        let array = CFArray([dictionary, NSMutableDictionary()])
        #expect(CFArrayGetCount(array) == 2)
        let element = unsafeBitCast(CFArrayGetValueAtIndex(array, 0), to: CFMutableDictionary.self)
        #expect(element === dictionary)
    }

    @Test func allocatorsAndBooleans() {
        #expect(CFAllocatorGetDefault().takeUnretainedValue() === kCFAllocatorDefault)
        #expect(kCFAllocatorDefault.kind == .standard && kCFAllocatorNull.kind == .null)
        #expect(kCFBooleanTrue.boolValue && !kCFBooleanFalse.boolValue)
    }
}
