# cmake -DINPUT=file -DOUTPUT=file.inc -P EmbedFile.cmake: writes the bytes of INPUT as a
# comma-separated list of hex literals, to be #included inside a C array initializer.
file(READ "${INPUT}" Hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," Bytes "${Hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" Bytes "${Bytes}")
file(WRITE "${OUTPUT}.tmp" "${Bytes}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
