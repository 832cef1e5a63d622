"""Student code shared by the similarity and mistake-proposal tests: one correct `merge_pair` of
the tokens lesson, written as a student would (the tests disguise, copy or pair it)."""

MERGE_PAIR = """def merge_pair(ids, pair, new_id):
    out, k = [], 0
    while k < len(ids):
        if k + 1 < len(ids) and ids[k] == pair[0] and ids[k + 1] == pair[1]:
            out.append(new_id)
            k += 2
        else:
            out.append(ids[k])
            k += 1
    return out
"""
