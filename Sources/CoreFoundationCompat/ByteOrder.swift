// Core Foundation's byte-order functions (CFByteOrder.h).

/// Reverses the bytes of a 16-bit value — `CFSwapInt16`.
public func CFSwapInt16(_ arg: UInt16) -> UInt16 { arg.byteSwapped }
/// Reverses the bytes of a 32-bit value — `CFSwapInt32`.
public func CFSwapInt32(_ arg: UInt32) -> UInt32 { arg.byteSwapped }
/// Reverses the bytes of a 64-bit value — `CFSwapInt64`.
public func CFSwapInt64(_ arg: UInt64) -> UInt64 { arg.byteSwapped }
/// A big-endian 16-bit value in host order — `CFSwapInt16BigToHost`.
public func CFSwapInt16BigToHost(_ arg: UInt16) -> UInt16 { UInt16(bigEndian: arg) }
/// A big-endian 32-bit value in host order — `CFSwapInt32BigToHost`.
public func CFSwapInt32BigToHost(_ arg: UInt32) -> UInt32 { UInt32(bigEndian: arg) }
/// A big-endian 64-bit value in host order — `CFSwapInt64BigToHost`.
public func CFSwapInt64BigToHost(_ arg: UInt64) -> UInt64 { UInt64(bigEndian: arg) }
/// A host-order 16-bit value in big-endian order — `CFSwapInt16HostToBig`.
public func CFSwapInt16HostToBig(_ arg: UInt16) -> UInt16 { arg.bigEndian }
/// A host-order 32-bit value in big-endian order — `CFSwapInt32HostToBig`.
public func CFSwapInt32HostToBig(_ arg: UInt32) -> UInt32 { arg.bigEndian }
/// A host-order 64-bit value in big-endian order — `CFSwapInt64HostToBig`.
public func CFSwapInt64HostToBig(_ arg: UInt64) -> UInt64 { arg.bigEndian }
/// A little-endian 16-bit value in host order — `CFSwapInt16LittleToHost`.
public func CFSwapInt16LittleToHost(_ arg: UInt16) -> UInt16 { UInt16(littleEndian: arg) }
/// A little-endian 32-bit value in host order — `CFSwapInt32LittleToHost`.
public func CFSwapInt32LittleToHost(_ arg: UInt32) -> UInt32 { UInt32(littleEndian: arg) }
/// A host-order 16-bit value in little-endian order — `CFSwapInt16HostToLittle`.
public func CFSwapInt16HostToLittle(_ arg: UInt16) -> UInt16 { arg.littleEndian }
/// A host-order 32-bit value in little-endian order — `CFSwapInt32HostToLittle`.
public func CFSwapInt32HostToLittle(_ arg: UInt32) -> UInt32 { arg.littleEndian }
