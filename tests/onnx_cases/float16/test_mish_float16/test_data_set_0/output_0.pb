
ByJc/–<©¥™.¸C—>|>UAÜiDAK:—DC‰B