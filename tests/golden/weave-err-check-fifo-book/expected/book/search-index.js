/* search-index.js: the book's search index (lit writes it from the documents). */
litSearchIndex({"version":2,
"stem":[[1,"sses","ss",0,0],[1,"ies","y",2,0],[1,"ied","y",2,0],[1,"ss","ss",0,0],[1,"us","us",3,0],[1,"is","is",2,0],[1,"ias","ias",1,0],[1,"eed","eed",1,0],[1,"s","",2,0],[1,"ing","",2,3],[1,"ed","",2,3],[2,"ization","ize",1,0],[2,"isation","ize",1,0],[2,"ation","ate",2,0],[3,"e","",2,0]],
"pages":[
["index.html","T"]
],
"sections":[
[0,"","T","int a;"]
],
"terms":"a int t",
"post":[
"0",
"0",
"0.6"
],
"words":"",
"wordTerms":""});
