#pragma once
#include "core/Tensor.h"
