// old generated file
