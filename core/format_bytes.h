#ifndef SWITCHYARD_CORE_FORMAT_BYTES_H_
#define SWITCHYARD_CORE_FORMAT_BYTES_H_

#include <cstdint>
#include <string>

namespace switchyard {

// "1.50 GiB", "512 B", "3.00 MiB": sizes in messages and device listings;
// "?" for a negative (unknown) size.
std::string FormatBytes(int64_t bytes);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_FORMAT_BYTES_H_
