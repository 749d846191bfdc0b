#pragma once

#include <string>
#include <vector>

// The API's shapes as data, the one description the web UI's TypeScript
// types are generated from (`ava-protocol-ts`). Tests hold the C++ encoders
// (wire.hpp, the session codec) to these shapes, so neither side can drift.
namespace ava::protocol {

struct FieldShape {
  std::string name;
  std::string type;  // TypeScript: "string", "number", "ModelRef", "Attachment[]", ...
  bool optional = false;
};

struct ObjectShape {
  std::string name;
  std::string doc;
  std::vector<FieldShape> fields;
  std::string extends;  // another shape whose fields this one has too
};

struct AliasShape {
  std::string name;
  std::string doc;
  std::string type;
};

const std::vector<AliasShape>& api_aliases();
const std::vector<ObjectShape>& api_objects();
// Fields of `shape` including inherited ones.
std::vector<FieldShape> all_fields(const ObjectShape& shape);
const ObjectShape* find_object(const std::string& name);

// The whole TypeScript module (protocol.gen.ts).
std::string typescript_module();

}  // namespace ava::protocol
