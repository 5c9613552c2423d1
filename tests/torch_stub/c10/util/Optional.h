#pragma once
#include <optional>
