#pragma once

// An object's bytes read as its DWARF type says: named member values, for
// objects a program hands over as raw memory (Charm++'s charm/arrayElements
// list gives each array element's bytes, not its PUP'd fields).

#include <elfutils/libdw.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mpidbg::core::mqs {

/// The data members of the structure or class `type` (typedefs and
/// qualifiers looked through) with their values in `bytes`, the object's
/// memory, as (path, value) in declaration order. Paths: the member name;
/// `outer.inner` for members of a member structure; `name[i]` for elements
/// of an array of at most 16 elements. Values: signed and unsigned integers
/// and characters in decimal, bool as true/false, floats in their shortest
/// round-trip form, enums as their enumerator's name (else the number),
/// pointers as 0x-hex. Base classes, static members, members past the end of
/// `bytes`, bit fields and members of other types (larger arrays, unions,
/// references) are left out; nesting stops at depth 4. Empty when `type` is
/// not a structure or class.
std::vector<std::pair<std::string, std::string>> memberValues(const Dwarf_Die& type,
                                                              std::span<const std::uint8_t> bytes);

}  // namespace mpidbg::core::mqs
